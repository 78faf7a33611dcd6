# The provider's digests through the real openssl binary (docs/params.md "Digests"):
# `openssl dgst -<name>` for every name and alias, loaded through the configuration file and through
# -provider-path/-provider, against the known answers of test/data; `openssl list
# -digest-algorithms`; HMAC and PBKDF2 with the LSH-256 family, cross-checked against HMAC computed
# here from the plain digest; their clean failure with the LSH-512 family; unknown names; empty and
# 1 MiB inputs through stdin.
use strict;
use warnings;
use Test::More;
use KlmsTest qw(:DEFAULT :cli);

$SIG{PIPE} = 'IGNORE';  # a command that fails early must not kill the recipe while we write its stdin

my $dir = private_dir();
my $data = $ENV{KLMS_TEST_DATA} or die 'KLMS_TEST_DATA not set';

# docs/params.md "Digests": names (primary first) with block and output sizes.
my @families = (
    { names => [qw(LSH-256-256 LSH-256 LSH256)], block => 128, out => 32 },
    { names => [qw(LSH-256-224 LSH-224)],        block => 128, out => 28 },
    { names => [qw(LSH-512-512 LSH-512 LSH512)], block => 256, out => 64 },
    { names => [qw(LSH-512-384 LSH-384)],        block => 256, out => 48 },
    { names => [qw(LSH-512-256)],                block => 256, out => 32 },
    { names => [qw(LSH-512-224)],                block => 256, out => 28 },
    { names => [qw(TDM-CHAM)],                   block => 16,  out => 32 },
    { names => [qw(TDM-LEA)],                    block => 16,  out => 32 },
    { names => [qw(TDM-ARIA)],                   block => 16,  out => 32 },
);
my %primary = map { my $f = $_; map { (lc($_) => $f->{names}[0]) } @{ $f->{names} } } @families;

# ---- Known answers, by primary name: [ message, hex digest ] ----
my %kat;
sub add_kat { my ($name, $msg, $md) = @_; push @{ $kat{$name} }, [ $msg, lc($md =~ s/\s+//gr) ] }

add_kat('LSH-256-256', 'abc', '5fbf365daea5446a7053c52b57404d77a07a5f48a1f7c1963a0898ba1b714741');

# Crypto++ format (lsh256.txt, lsh512.txt, lsh512_256.txt): Name: / Message: / Digest:.
my %cryptopp_name = ('LSH-224' => 'LSH-256-224', 'LSH-256' => 'LSH-256-256', 'LSH-384' => 'LSH-512-384',
                     'LSH-512' => 'LSH-512-512', 'LSH-512-256' => 'LSH-512-256');
for my $file (qw(lsh256.txt lsh512.txt lsh512_256.txt)) {
    my ($name, $msg);
    for (split /\r?\n/, slurp("$data/lsh/$file")) {
        if (/^Name:\s*(\S+)/) { $name = $cryptopp_name{$1} // die "unknown name $1 in $file" }
        elsif (/^Message:\s*r(\d+) ([0-9a-f]+)$/) { $msg = unhex($2) x $1 }  # Crypto++: r<count> <hex>
        elsif (/^Message:\s*(.*)$/) { $msg = unhex($1) }
        elsif (/^Digest:\s*(.*)$/) { add_kat($name, $msg, $1) }
    }
}
# KCMVP .rsp (Len in bits, Msg = 00 placeholder for Len = 0).
for my $f (['LSH-256-256', 'kcmvp_LSH256-256_ShortMsg_LongMsg-partial.rsp'],
           ['LSH-256-224', 'kcmvp_LSH256-224_ShortMsg_LongMsg-partial.rsp']) {
    my ($len, $msg);
    for (split /\r?\n/, slurp("$data/lsh/$f->[1]")) {
        if (/^Len = (\d+)/) { $len = $1 }
        elsif (/^Msg = (\S*)/) { $msg = substr(unhex($1), 0, $len / 8) }
        elsif (/^MD = (\S+)/ && $len % 8 == 0) { add_kat($f->[0], $msg, $1) }
    }
}
# LSH-512-224: messages (i*7+3) mod 256.
for (split /\r?\n/, slurp("$data/lsh/lsh512_224_vectors.txt")) {
    next unless /^(\d+) ([0-9a-f]+)$/;
    add_kat('LSH-512-224', join('', map { chr(($_ * 7 + 3) % 256) } 0 .. $1 - 1), $2);
}
# Tandem-DM: bytes i mod 256 of each length, and the named messages of tdm_vectors.txt.
for (split /\r?\n/, slurp("$data/tdm/tdm_lengths.txt")) {
    next unless /^(TDM-\w+) (\d+) ([0-9a-f]{64})$/;
    add_kat($1, join('', map { chr($_ % 256) } 0 .. $2 - 1), $3);
}
{
    my $name;
    my %messages = ('""' => '', '"abc"' => 'abc', '00*55' => "\0" x 55, '00..3f' => join('', map { chr } 0 .. 63));
    for (split /\r?\n/, slurp("$data/tdm/tdm_vectors.txt")) {
        $name = $1 if /^(TDM-(?:CHAM|LEA|ARIA))-/;
        add_kat($name, $messages{$1}, $2) if /^\s+H\((.*?)\)\s*=\s*([0-9a-f]{64})/;
    }
}
for my $f (@families) {
    my $n = $f->{names}[0];
    cmp_ok(scalar @{ $kat{$n} // [] }, '>=', 4, "known answers loaded for $n") or BAIL_OUT("no vectors for $n");
}

# One file per known answer; `openssl dgst -NAME file...` digests them all in one run.
my %files;
for my $name (sort keys %kat) {
    my $i = 0;
    for my $v (@{ $kat{$name} }) {
        my $path = "$dir/" . lc($name) . '-' . $i++ . '.bin';
        spew($path, $v->[0]);
        push @{ $files{$name} }, [ $path, $v->[1] ];
    }
}

# Runs dgst over all vectors of `primary` with `-name`, and checks every line.
sub check_kats {
    my ($name, $how, @extra) = @_;
    my $opts = @extra && ref $extra[-1] eq 'HASH' ? pop @extra : {};
    my $p = $primary{ lc $name };
    my @v = @{ $files{$p} };
    my $r = openssl('dgst', @extra, "-$name", map({ $_->[0] } @v), $opts);
    subtest "dgst -$name ($how): " . scalar(@v) . ' known answers' => sub {
        cmd_ok($r, 'exit 0');
        my %got = $r->{out} =~ /^\Q$p\E\((.*?)\)= ([0-9a-f]+)$/mg;
        my $bad = 0;
        for my $x (@v) {
            next if defined $got{ $x->[0] } && $got{ $x->[0] } eq $x->[1];
            $bad++;
            diag("$x->[0]: got " . ($got{ $x->[0] } // 'nothing') . ", want $x->[1]") if $bad <= 3;
        }
        is($bad, 0, "every digest right, labelled with the primary name $p");
    };
}

# Through the configuration file (OPENSSL_CONF = conf/klms.cnf).
check_kats($_, 'configuration file') for map { @{ $_->{names} } } @families;

# Through -provider-path/-provider, with neither the configuration nor OPENSSL_MODULES helping.
my %bare = (env => { OPENSSL_CONF => '/dev/null', OPENSSL_MODULES => undef });
check_kats($_, '-provider-path/-provider', provider_args(), \%bare) for map { @{ $_->{names} } } @families;

# Names are case-insensitive.
check_kats('lsh-256', 'lower case');
check_kats('tdm-aria', 'lower case');

# Without the provider the names are unknown: the runs above really used klms.
cmd_fails(openssl('dgst', '-LSH-256', $files{'LSH-256-256'}[0][0], \%bare),
          qr/Unknown option or message digest/, 'without the provider, -LSH-256 is unknown');

# ---- openssl list -digest-algorithms ----
for my $how (['configuration file'], ['-provider-path/-provider', provider_args(), \%bare]) {
    my ($label, @args) = @$how;
    my $r = openssl('list', '-digest-algorithms', @args);
    cmd_ok($r, "list -digest-algorithms ($label)");
    my @ours;
    for my $line (split /\n/, $r->{out}) {
        next unless $line =~ /^\s*(?:\{ (.*) \}|(\S+)) \@ klms\s*$/;
        push @ours, join(',', sort split /, /, $1 // $2);
    }
    my @want = map { join(',', sort @{ $_->{names} }) } @families;
    is_deeply([sort @ours], [sort @want], "list shows exactly our digests with their aliases ($label)");
}

# ---- Empty input and 1 MiB through stdin ----
my $mib = join('', map { chr(($_ * 31 + 7) % 251) } 0 .. 4095) x 256;
spew("$dir/mib.bin", $mib);
my %mib_digest;
for my $name (qw(TDM-CHAM TDM-LEA TDM-ARIA LSH-256-256 LSH-512-512)) {
    my ($empty) = grep { $_->[0] eq '' } @{ $kat{$name} };
    my $r = openssl('dgst', "-$name", { stdin => '' });
    cmd_ok($r, "dgst -$name of empty stdin", qr/^\Q$name\E\(stdin\)= \Q$empty->[1]\E$/m);
    my ($k1000) = grep { length $_->[0] == 1000 } @{ $kat{$name} };
    if ($k1000) {
        $r = openssl('dgst', "-$name", { stdin => $k1000->[0] });
        cmd_ok($r, "dgst -$name of 1000 bytes through stdin (known answer)", qr/= \Q$k1000->[1]\E$/m);
    }
    $r = openssl('dgst', "-$name", { stdin => $mib });
    cmd_ok($r, "dgst -$name of 1 MiB through stdin", qr/^\Q$name\E\(stdin\)= [0-9a-f]{64,128}$/m);
    my ($via_stdin) = $r->{out} =~ /= ([0-9a-f]+)$/m;
    $r = openssl('dgst', provider_args(), "-$name", "$dir/mib.bin", \%bare);
    my ($via_file) = $r->{out} =~ /= ([0-9a-f]+)$/m;
    is($via_stdin, $via_file, "$name: 1 MiB through stdin (config) = from a file (-provider)");
    $mib_digest{$name} = $via_stdin;
    $r = openssl('dgst', "-$name", { stdin => $mib . 'x' });
    unlike($r->{out}, qr/\Q$via_stdin\E/, "$name: one more byte changes the digest");
}
# The 1 MiB message's digests computed outside this tree (test/data/digests/mib_digests.txt, with the
# commands in test/data/SOURCES.md): Crypto++'s LSH, and Tandem-DM over Crypto++'s block ciphers.
my %mib_expected;
for (split /\r?\n/, slurp("$data/digests/mib_digests.txt")) {
    $mib_expected{$1} = $2 if /^([A-Z0-9-]+) ([0-9a-f]{64,128})$/;
}
is(scalar(keys %mib_expected), scalar(keys %mib_digest), 'an outside 1 MiB digest for each digest computed');
for my $name (sort keys %mib_digest) {
    is($mib_digest{$name}, $mib_expected{$name}, "$name of the 1 MiB message is the outside implementation's");
}

# ---- HMAC: openssl mac and dgst -hmac, against HMAC computed from the plain digest ----
# H(m) by `openssl dgst -NAME -binary` (the plain, already checked digest).
sub hash_bin {
    my ($name, $msg) = @_;
    my $r = openssl('dgst', "-$name", '-binary', { stdin => $msg });
    die "dgst -$name failed: $r->{err}" if $r->{status} != 0;
    return $r->{out};
}
# HMAC(K, m) = H((K0 ^ opad) || H((K0 ^ ipad) || m)); K0 = K (or H(K) when longer than a block),
# zero-padded to the block; OpenSSL uses only the first `block` bytes of K0 (docs/params.md "Digests", for TDM).
sub hmac_model {
    my ($name, $block, $key, $msg) = @_;
    $key = hash_bin($name, $key) if length $key > $block;
    my $k0 = substr($key . ("\0" x $block), 0, $block);
    my $inner = hash_bin($name, ($k0 ^ ("\x36" x $block)) . $msg);
    return hash_bin($name, ($k0 ^ ("\x5c" x $block)) . $inner);
}

my $hmac_msg = "The HMAC message\n" x 20;
spew("$dir/hmac.msg", $hmac_msg);
for my $c (['LSH-256', 'LSH-256-256', 128, 'key'],
           ['LSH-256', 'LSH-256-256', 128, join('', map { chr } 0 .. 199)],  # longer than a block
           ['LSH-224', 'LSH-256-224', 128, "\x0b" x 20],
           ['TDM-CHAM', 'TDM-CHAM', 16, 'ten bytes!'],
           ['TDM-LEA', 'TDM-LEA', 16, 'a key longer than the 16-byte block']) {
    my ($name, $p, $block, $key) = @$c;
    my $want = tohex(hmac_model($name, $block, $key, $hmac_msg));
    my $r = openssl('mac', '-digest', $name, '-macopt', 'hexkey:' . tohex($key), '-in', "$dir/hmac.msg", 'HMAC');
    cmd_ok($r, "mac -digest $name HMAC, " . length($key) . '-byte key: exit 0');
    is(lc($r->{out} =~ s/\s+//gr), $want, "mac -digest $name HMAC = H((K^opad)||H((K^ipad)||m))");
    if ($key !~ /[^\x21-\x7e ]/) {
        $r = openssl('dgst', "-$name", '-hmac', $key, "$dir/hmac.msg");
        cmd_ok($r, "dgst -$name -hmac matches the model",
               qr/^HMAC-\Q$p\E\(\Q$dir\E\/hmac\.msg\)= \Q$want\E$/m);
    }
}

# ---- PBKDF2 with HMAC-LSH-256, against the RFC 8018 definition over the model HMAC ----
{
    my ($pass, $salt, $iter, $len) = ('password', 'NaCl-salt', 2, 48);
    my $dk = '';
    for (my $i = 1; length $dk < $len; $i++) {
        my $u = hmac_model('LSH-256', 128, $pass, $salt . pack('N', $i));
        my $t = $u;
        for (2 .. $iter) { $u = hmac_model('LSH-256', 128, $pass, $u); $t ^= $u }
        $dk .= $t;
    }
    $dk = substr($dk, 0, $len);
    for my $name (qw(LSH-256 LSH-256-256 LSH256)) {
        my $r = openssl('kdf', '-keylen', $len, '-kdfopt', "digest:$name", '-kdfopt', "pass:$pass",
                        '-kdfopt', "salt:$salt", '-kdfopt', "iter:$iter", 'PBKDF2');
        cmd_ok($r, "kdf PBKDF2 digest:$name: exit 0");
        is(lc($r->{out} =~ s/[\s:]+//gr), tohex($dk), "PBKDF2-HMAC-$name (2 blocks) matches RFC 8018 over the model");
    }
}

# ---- HMAC and PBKDF2 fail cleanly with the LSH-512 family (block > 144 bytes) ----
for my $name (qw(LSH-512-512 LSH-512 LSH512 LSH-512-384 LSH-384 LSH-512-256 LSH-512-224)) {
    cmd_fails(openssl('mac', '-digest', $name, '-macopt', 'hexkey:00112233', '-in', "$dir/hmac.msg", 'HMAC'),
              qr/MAC parameter error/, "mac -digest $name HMAC fails cleanly");
    cmd_fails(openssl('dgst', "-$name", '-hmac', 'key', "$dir/hmac.msg"),
              qr/Error setting context/, "dgst -$name -hmac fails cleanly");
    cmd_fails(openssl('kdf', '-keylen', 32, '-kdfopt', "digest:$name", '-kdfopt', 'pass:pw', '-kdfopt', 'salt:s',
                      '-kdfopt', 'iter:2', 'PBKDF2'),
              qr/EVP_KDF_derive failed/, "kdf PBKDF2 digest:$name fails cleanly");
}
# ... while the plain digest of the same family works (the block size is not misreported).
cmd_ok(openssl('dgst', '-LSH-512', "$dir/hmac.msg"), 'plain dgst -LSH-512 still works', qr/^LSH-512-512\(/m);

# ---- Unknown digest names ----
cmd_fails(openssl('dgst', '-NOPE-256', "$dir/hmac.msg"), qr/Unknown option or message digest/,
          'dgst -NOPE-256: unknown, clean failure');
cmd_fails(openssl('dgst', '-LSH-256-512', "$dir/hmac.msg"), qr/Unknown option or message digest/,
          'dgst -LSH-256-512 (no such variant): clean failure');
cmd_fails(openssl('dgst', '-TDM-AES', "$dir/hmac.msg"), qr/Unknown option or message digest/,
          'dgst -TDM-AES: clean failure');
cmd_fails(openssl('mac', '-digest', 'NOPE-256', '-macopt', 'hexkey:00', '-in', "$dir/hmac.msg", 'HMAC'),
          qr/error/i, 'mac -digest NOPE-256: clean failure');
cmd_fails(openssl('kdf', '-keylen', 32, '-kdfopt', 'digest:NOPE-256', '-kdfopt', 'pass:pw', '-kdfopt', 'salt:s',
                  '-kdfopt', 'iter:2', 'PBKDF2'),
          qr/error|failed/i, 'kdf digest:NOPE-256: clean failure');

done_testing();
