# The PKCS#11 module (docs/pkcs11.md) through clients nobody here wrote: PyKCS11 (Debian's
# python3-pykcs11, driven by test/pkcs11/p11_driver.py) for token and PIN set-up, key generation
# (SHA-256, two levels, K-LMS through its type codes), signing with the length query and a short
# buffer first, attributes and PIN locks; OpenSC's pkcs11-tool for what it can do with an HSS token;
# p11-kit list-modules with the module file the package installs. Every signature is verified by
# the real openssl (through CKA_PUBLIC_KEY_INFO) and, for the SHA-256 keys, by BouncyCastle, and
# judged by the reuse ledger (test/support/Ledger.pm). A missing or copied-back state file and an
# exhausted key give their documented CKR and the reason in the module's log, and lose nothing.
# About 15 s (most of it python and openssl starts, one JVM).
use strict;
use warnings;
use Test::More;
use KlmsTest qw(:DEFAULT :cli);
use ReuseTest;
use File::Copy qw(copy);
use File::Spec;

my $module = $ENV{KLMS_PKCS11} // plan skip_all => 'libklms-pkcs11.so not built (no $KLMS_PKCS11)';
my $python = '/usr/bin/python3';
plan skip_all => 'no python3-pykcs11 (scripts/install-deps.sh installs it)'
    unless system($python, '-c', 'import PyKCS11') == 0;
sub which { my ($p) = @_; for (File::Spec->path) { return "$_/$p" if -x "$_/$p" } return undef }

my $dir = private_dir();
my $token = "$dir/token";
my $out = "$dir/out";
mkdir $out or die;
my $log = "$dir/module.log";
my %env = (KLMS_PKCS11_MODULE => $module, KLMS_PKCS11_TOKEN_DIR => $token, KLMS_PKCS11_LOG => $log,
           KLMS_PKCS11_PIN_COST => 10, KLMS_PKCS11_MAX_PIN_FAILURES => 3, KLMS_PKCS11_CONF => undef);
my $driver = "$ENV{KLMS_SOURCE_DIR}/test/pkcs11/p11_driver.py";
my ($so_pin, $pin) = ('so-secret-1', '1234');

sub driver { return run_cmd_st([$python, $driver, @_], env => \%env) }
sub driver_ok {
    my ($name, @args) = @_;
    my $r = driver(@args);
    cmd_ok($r, $name);
    return $r;
}
sub log_text { return -e $log ? slurp($log) : '' }

# ---- Token and PINs ----
my $r = driver_ok('C_InitToken, SO login, C_InitPIN', 'init', $so_pin, $pin, 'klms test');
like($r->{out}, qr/^flags .*CKF_USER_PIN_INITIALIZED.*CKF_TOKEN_INITIALIZED/m, 'the token says initialized, user PIN set');
is((stat $token)[2] & 07777, 0700, 'the token directory is 0700');
is((stat "$token/token.meta")[2] & 07777, 0600, 'token.meta is 0600');

# ---- Keys: SHA-256 H5, two levels, K-LMS (LMS_LSH256_M32_H5 / LMOTS_LSH256_N32_W4, docs/params.md) ----
my %keys = (sha => {levels => '5/3', max => 32, bc => 1}, two => {levels => '5/3,5/3', max => 1024, bc => 1},
            lsh => {levels => '0xE0000100/0xE0000102', max => 32, bc => 0});
for my $k (sort keys %keys) {
    $r = driver_ok("$k: C_GenerateKeyPair (CKM_HSS_KEY_PAIR_GEN, levels $keys{$k}{levels})",
                   'keygen', $pin, $k, $keys{$k}{levels}, $out);
    my %v = $r->{out} =~ /^(\w+) (.*)$/mg;
    $keys{$k}{$_} = $v{$_} for keys %v;
    is($v{remaining}, $keys{$k}{max}, "$k: CKA_HSS_KEYS_REMAINING is the key's 2^h");
    is((stat $v{state_file})[2] & 07777, 0600, "$k: its state file is 0600");
    # CKA_PUBLIC_KEY_INFO is what openssl reads; its BIT STRING is CKA_VALUE (docs/design.md "Encodings").
    my $o = openssl('pkey', '-pubin', '-inform', 'DER', '-in', "$out/$k.spki.der", '-out', "$out/$k.pub.pem");
    cmd_ok($o, "$k: openssl reads CKA_PUBLIC_KEY_INFO");
    is(tohex(substr(slurp("$out/$k.spki.der"), 20)), tohex(slurp("$out/$k.pub")), "$k: SPKI holds CKA_VALUE");
}
like(log_text(), qr/generated HSS key \w+ .* pkcs11:token=klms%20test;id=%[0-9A-F]{2}.*;type=private/,
     "the log gives each new key's pkcs11: URI");

# ---- Signatures: the length query and CKR_BUFFER_TOO_SMALL spend nothing, one index per signature ----
for my $k (sort keys %keys) {
    $r = driver_ok("$k: 3 signatures, each after a length query and a short buffer", 'sign', $pin, $k, 3, $out, "$k-a");
    like($r->{out}, qr/remaining @{[$keys{$k}{max} - 3]}$/m, "$k: 3 indices spent");
}

driver_ok('C_GetAttributeValue: lengths, sensitivity, unknown types, short buffers; private objects need login',
          'attributes', $pin, 'sha');

# ---- pkcs11-tool ----
SKIP: {
    my $tool = which('pkcs11-tool');
    skip 'no pkcs11-tool (scripts/install-deps.sh installs opensc)', 6 unless $tool;
    my @m = ($tool, '--module', $module);
    $r = run_cmd_st([@m, '-I'], env => \%env);
    cmd_ok($r, 'pkcs11-tool -I', qr/Cryptoki version 3\.1/);
    $r = run_cmd_st([@m, '-L'], env => \%env);
    cmd_ok($r, 'pkcs11-tool -L: the token', qr/token label\s*: klms test.*PIN initialized/s);
    $r = run_cmd_st([@m, '-M'], env => \%env);
    cmd_ok($r, 'pkcs11-tool -M: CKM_HSS_KEY_PAIR_GEN and CKM_HSS',
           qr/mechtype-0x4032, generate_key_pair\n\s*mechtype-0x4033, sign, verify/);
    $r = run_cmd_st([@m, '--login', '--pin', $pin, '-O'], env => \%env);
    cmd_ok($r, 'pkcs11-tool -O: the private key and its attributes',
           qr/Private Key Object.*\n\s*label:\s*sha\n\s*ID:\s*$keys{sha}{id}\n\s*Usage:\s*sign\n\s*Access:\s*sensitive, always sensitive, never extractable, local/);
    # Its signature buffer is 512 bytes: C_Sign answers CKR_BUFFER_TOO_SMALL, which spends nothing,
    # and pkcs11-tool's second C_SignInit meets the operation still active.
    spew("$dir/m.bin", "pkcs11-tool message");
    $r = run_cmd_st([@m, '--login', '--pin', $pin, '--sign', '-m', '0x4033', '--label', 'sha', '-i', "$dir/m.bin",
                     '-o', "$dir/m.sig"], env => \%env);
    cmd_fails($r, qr/CKR_OPERATION_ACTIVE/, 'pkcs11-tool --sign cannot sign HSS (512-byte buffer)');
    like(driver('remaining', $pin, 'sha')->{out}, qr/^remaining 29$/m, '... and spent no index');
}

# ---- PINs: wrong PINs count across processes, lock, the SO's reset loses no key ----
driver_ok("wrong user PIN $_ of 3: CKR_PIN_INCORRECT", 'login', '9999', 'CKR_PIN_INCORRECT') for 1 .. 3;
$r = driver_ok('the right PIN on a locked token: CKR_PIN_LOCKED', 'login', $pin, 'CKR_PIN_LOCKED');
like($r->{out}, qr/CKF_USER_PIN_LOCKED/, 'the token flags say CKF_USER_PIN_LOCKED');
like(log_text(), qr/the user PIN is locked after 3 wrong PINs; the SO sets a new one with C_InitPIN/, 'the log says why and what to do');
driver_ok('the SO sets a new user PIN (C_InitPIN)', 'so_reset', $so_pin, '4321');
driver_ok('the old PIN no longer opens the token', 'login', $pin, 'CKR_PIN_INCORRECT');
driver_ok('the user changes the PIN (C_SetPIN)', 'set_pin', '4321', $pin);
driver_ok('... and the keys sealed before the reset still sign', 'sign', $pin, 'sha', 1, $out, 'sha-b');

# ---- Refused state files: a defined CKR, the reason in the log, nothing lost ----
my $state = $keys{sha}{state_file};
rename $state, "$state.away" or die;
$r = driver_ok('a missing state file: CKR_FUNCTION_FAILED', 'expect', $pin, 'sha', 'CKR_FUNCTION_FAILED');
like($r->{out}, qr/device_error [1-9]\d*/, '... with the engine\'s error in ulDeviceError');
like(log_text(), qr/C_Sign refused while opening the state file: .*\Q$state\E|C_Sign refused while opening the state file/,
     '... and the reason in the log');
rename "$state.away", $state or die;
driver_ok('the state file back: signing goes on', 'sign', $pin, 'sha', 1, $out, 'sha-c');
link $state, "$state.orig" or die;
unlink $state or die;
copy("$state.orig", $state) or die;
chmod 0600, $state;
my $before = log_text();
driver_ok('a copied-back state file (a new file with old contents): CKR_FUNCTION_FAILED', 'expect', $pin, 'sha',
          'CKR_FUNCTION_FAILED');
like(substr(log_text(), length $before), qr/C_Sign refused.*(copied|restored|moved)/, '... the log says it looks copied');
rename "$state.orig", $state or die;
driver_ok('the original back: signing goes on', 'sign', $pin, 'sha', 1, $out, 'sha-d');

# ---- An exhausted key: the last indices wait for klms-state acknowledge, then CKR_KEY_EXHAUSTED ----
$r = driver_ok('ex: a 32-signature key', 'keygen', $pin, 'ex', '5/3', $out);
my %ex = $r->{out} =~ /^(\w+) (.*)$/mg;
openssl('pkey', '-pubin', '-inform', 'DER', '-in', "$out/ex.spki.der", '-out', "$out/ex.pub.pem");
$keys{ex} = {%ex, bc => 1};
driver_ok('ex: 29 signatures', 'loop', $pin, 'ex', 29, $out, 'ex-a');
$before = log_text();
driver_ok('ex: the last 3 wait for an acknowledgement: CKR_FUNCTION_FAILED', 'expect', $pin, 'ex', 'CKR_FUNCTION_FAILED');
like(substr(log_text(), length $before), qr/klms-state acknowledge/, '... the log names klms-state acknowledge');
cmd_ok(run_cmd_st([tool('klms-state'), 'acknowledge', '--key-id', $ex{id}, $ex{state_file}]), 'klms-state acknowledge');
driver_ok('ex: the last 3', 'loop', $pin, 'ex', 3, $out, 'ex-b');
driver_ok('ex: exhausted: CKR_KEY_EXHAUSTED', 'expect', $pin, 'ex', 'CKR_KEY_EXHAUSTED');
like(driver('remaining', $pin, 'ex')->{out}, qr/^remaining 0$/m, 'ex: CKA_HSS_KEYS_REMAINING 0');

# ---- Every signature: openssl, the ledger, BouncyCastle ----
my @bc;
for my $k (sort keys %keys) {
    my $ledger = reuse_ledger("$out/$k.pub.pem");
    my @sigs = sort glob("$out/$k-*.sig");
    my $bad = 0;
    for my $sig (@sigs) {
        (my $msg = $sig) =~ s/\.sig$/.msg/;
        my $add = $ledger->add(sig => slurp($sig), msg => slurp($msg), label => $sig);
        $bad++ unless $add->{ok};
        push @bc, "$out/$k.pub", $msg, $sig if $keys{$k}{bc};
    }
    is($bad, 0, "$k: openssl verifies all " . scalar(@sigs) . ' signatures');
    ledger_ok($ledger, $k);
}
is(scalar(grep { /ex-/ } @bc) / 2, 32, 'ex: all 32 signatures were returned, each once');
SKIP: {
    my ($java, $javac) = (which('java'), which('javac'));
    my $jar = '/usr/share/java/bcprov.jar';
    skip 'no java, javac or bcprov.jar (scripts/install-deps.sh installs them)', 1 unless $java && $javac && -r $jar;
    cmd_ok(run_cmd_st([$javac, '-cp', $jar, '-d', "$dir/classes", "$ENV{KLMS_SOURCE_DIR}/test/support/HssVerify.java"]),
           'javac HssVerify.java') or last;
    $r = run_cmd_st([$java, '-cp', "$jar:$dir/classes", 'HssVerify', @bc]);
    my $n = () = $r->{out} =~ /: VERIFIED$/mg;
    ok($r->{status} == 0 && $n == @bc / 3, "BouncyCastle verifies all $n SHA-256 signatures") or diag($r->{out});
}

# ---- C_DestroyObject: the state file retired first ----
driver_ok('lsh: C_DestroyObject of both halves', 'destroy', $pin, 'lsh');
$r = run_cmd_st([tool('klms-state'), 'show', $keys{lsh}{state_file}]);
like($r->{out}, qr/exhausted|0 remaining|remaining: 0/i, 'lsh: its state file is retired (nothing left to sign)');
is(scalar(() = glob("$token/objects/*.obj")), 6, 'lsh: both object files gone, the others there');

# ---- p11-kit: the package's module file, opt-in ----
SKIP: {
    my $p11kit = which('p11-kit');
    skip 'no p11-kit (scripts/install-deps.sh installs it)', 2 unless $p11kit;
    # p11-kit reads no user configuration as root: run it as nobody, with a token nobody owns.
    my @as = $> == 0 ? ('setpriv', '--reuid=65534', '--regid=65534', '--clear-groups') : ();
    # A module built against an OpenSSL under /root (the OpenSSL 4 stage's, ~/.cache/klms-openssl)
    # cannot be loaded by nobody; the stage with the system's OpenSSL runs this check.
    if (@as && run_cmd([@as, 'ldd', $module])->{out} =~ /=> not found/) {
        skip 'the module\'s libraries are not readable by nobody (an OpenSSL built under /root): p11-kit runs as nobody here', 2;
    }
    my $home = File::Temp::tempdir('klms-p11kit-XXXXXX', DIR => '/tmp', CLEANUP => 1);
    mkdir "$home/.config";
    mkdir "$home/.config/pkcs11";
    mkdir "$home/.config/pkcs11/modules";
    (my $file = slurp("$ENV{KLMS_SOURCE_DIR}/pkcs11/klms-pkcs11.module")) =~ s/^module: .*$/module: $module/m;
    spew("$home/.config/pkcs11/modules/klms-pkcs11.module", $file);
    system('chown', '-R', '65534:65534', $home) if $> == 0;
    my %nobody = (%env, HOME => $home, XDG_CONFIG_HOME => undef, KLMS_PKCS11_TOKEN_DIR => "$home/token",
                  KLMS_PKCS11_LOG => "$home/log");
    run_cmd_st([@as, $python, $driver, 'init', $so_pin, $pin, 'p11kit token'], env => \%nobody);
    $r = run_cmd_st([@as, $p11kit, 'list-modules'], env => \%nobody);
    cmd_ok($r, 'p11-kit list-modules loads it (enable-in: p11-kit)', qr/klms-pkcs11: .*\n(?:.*\n)*?\s+token: p11kit token/);
    $r = run_cmd_st([@as, which('pkcs11-tool') // 'pkcs11-tool', '--module', '/usr/lib/x86_64-linux-gnu/p11-kit-proxy.so',
                     '-L'], env => \%nobody);
    unlike($r->{out}, qr/klms/, 'the p11-kit proxy in another program does not load it');
}

done_testing();
