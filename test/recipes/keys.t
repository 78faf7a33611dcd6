# HSS/LMS keys through the real openssl binary (docs/design.md "Provider surface", "Encodings"):
# genpkey with its defaults and every -pkeyopt (long and short form, every hash family, L = 1 and 2,
# state-file, seed/identifier), its errors (each naming the parameter), `list -key-managers`,
# `pkey -text/-text_pub/-pubout/-check/-pubcheck/-noout`, DER and PEM both ways, encrypted PKCS#8,
# malformed keys refused cleanly, and that no key encoding ever carries the index.
use strict;
use warnings;
use Test::More;
use Cwd qw(getcwd);
use KlmsTest qw(:DEFAULT :cli);

my $dir = private_dir();
my $state_dir = "$dir/state";
mkdir $state_dir, 0700 or die;
$ENV{KLMS_STATE_DIR} = $state_dir;  # where genpkey puts state files without state-file (no $HOME)
my $msg = "$dir/msg.txt";
spew($msg, "a message to sign\n");

sub pkey_text { my ($key, @a) = @_; return openssl('pkey', '-in', $key, '-text', '-noout', @a) }
sub field { my ($text, $name) = @_; return $text =~ /^\Q$name\E: (.*)$/m ? $1 : undef }
# The raw HSS public key (the SPKI's BIT STRING without its unused-bits byte).
sub raw_pub {
    my ($key, @a) = @_;
    my $r = openssl('pkey', '-in', $key, @a, '-pubout', '-outform', 'DER');
    return undef if $r->{status} != 0;
    my ($spki) = der_items($r->{out});
    my (undef, $bits) = der_items($spki->{content});
    return substr($bits->{content}, 1);
}
sub types_of { my ($raw) = @_; return sprintf('%08x/%08x', unpack('N', substr($raw, 4, 4)), unpack('N', substr($raw, 8, 4))) }
sub state_files { opendir my $d, $state_dir or die; return sort grep { !/^\./ } readdir $d }
sub sign_ok {
    my ($key, %o) = @_;
    my $sig = "$dir/sig-" . int(rand(1e9));
    my $r = openssl('pkeyutl', '-sign', '-rawin', '-inkey', $key, '-in', $msg, '-out', $sig, { env => $o{env} // {} });
    return ($r, $sig);
}

# ---- Defaults: LMS_SHA256_M32_H10 / LMOTS_SHA256_N32_W4, L = 1, state file in KLMS_STATE_DIR ----
{
    my $key = "$dir/default.pem";
    my $r = openssl('genpkey', '-algorithm', 'HSS-LMS', '-out', $key);
    cmd_ok($r, 'genpkey -algorithm HSS-LMS with no options');
    like($r->{err}, qr/\A(?:\.+\n)?\z/, 'genpkey stderr: nothing but progress dots and their newline');
    ok(-s (glob("$state_dir/*.state.cache"))[0], 'key generation wrote the tree cache file');
    like(slurp($key), qr/^-----BEGIN PRIVATE KEY-----\n/, 'PEM PKCS#8 private key');
    $r = pkey_text($key);
    cmd_ok($r, 'pkey -text of the default key', qr/^HSS\/LMS Private-Key:$/m);
    my $t = $r->{out};
    is(field($t, 'levels'), 1, 'default L = 1');
    is(field($t, 'level 1'), 'LMS_SHA256_M32_H10 / LMOTS_SHA256_N32_W4', 'default parameter sets');
    my $id = field($t, 'I');
    like($id, qr/^[0-9a-f]{32}$/, 'I shown as 32 hex digits');
    is(field($t, 'state file'), "$state_dir/$id.state", 'state file is <KLMS_STATE_DIR>/<hex of I>.state');
    is(field($t, 'seeded'), 'no', 'not seeded');
    is(field($t, 'state'), 'ok', 'state ok');
    is(field($t, 'next index'), 0, 'next index 0');
    is(field($t, 'remaining signatures'), 1024, 'remaining 1024');
    is(field($t, 'maximum signatures'), 1024, 'maximum 1024 (2^10)');
    like($t, qr/^public key:\n(?:    [0-9a-f:]+\n){4}/m, 'public key hex block');
    ok(-f "$state_dir/$id.state", 'state file exists');
    is((stat "$state_dir/$id.state")[2] & 07777, 0600, 'state file is 0600');
    is(types_of(raw_pub($key)), '00000006/00000003', 'type codes in the public key: LMS_SHA256_M32_H10, LMOTS_SHA256_N32_W4');
    is(substr(raw_pub($key), 12, 16), unhex($id), 'I of the text is the I of the public key');
}

# ---- Progress through the key-generation callback: a tree of 2^14 leaves or more reports every
# 1/64 of its leaves (lms/merkle_tree.h, BuildOptions::report_from_leaves), which genpkey prints as
# dots, then a newline; a smaller tree reports nothing. Counted in leaves, not in seconds, so the
# check holds however fast the machine is. ----
{
    my $r = hss_genpkey("$dir/h15.pem", 'height:15', "state-file:$dir/h15.state");
    cmd_ok($r, 'genpkey height:15 (32768 leaves)');
    # genpkey reports progress by default up to 3.6; from 4.0 only with -verbose (apps/genpkey.c).
    if (openssl_at_least(4, 0)) {
        is($r->{err}, '', 'OpenSSL 4.0+: an H15 key generation without -verbose prints no progress');
        my $v = openssl('genpkey', '-verbose', '-algorithm', 'HSS-LMS', '-pkeyopt', 'height:15',
                        '-pkeyopt', "state-file:$dir/h15v.state", '-out', "$dir/h15v.pem");
        cmd_ok($v, 'OpenSSL 4.0+: genpkey -verbose height:15');
        like($v->{err}, qr/\AGenerating \S+ key\n\.+\n\z/,
             'OpenSSL 4.0+: an H15 key generation with -verbose says so and shows progress dots');
    } else {
        like($r->{err}, qr/\A\.+\n\z/, 'an H15 key generation shows progress dots, then a newline');
    }
    my $small = hss_genpkey("$dir/h10.pem", 'height:10', "state-file:$dir/h10.state");
    cmd_ok($small, 'genpkey height:10 (1024 leaves, below the reporting size)');
    is($small->{err}, '', '... prints no dots');
    is(field(pkey_text("$dir/h15.pem")->{out}, 'maximum signatures'), 32768, 'H15: 32768 signatures');
    ok(-s "$dir/h15.state.cache", 'the tree cache was written');
}

# ---- Long form: lms/ots, one and several levels, one OTS for all or one per level ----
my @long = (
    [ 'lms only (OTS defaults to W4)', ['lms:LMS_SHA256_M32_H5'], ['LMS_SHA256_M32_H5 / LMOTS_SHA256_N32_W4'] ],
    [ 'lms + ots', ['lms:LMS_SHA256_M32_H5', 'ots:LMOTS_SHA256_N32_W8'], ['LMS_SHA256_M32_H5 / LMOTS_SHA256_N32_W8'] ],
    [ 'two levels, one ots for all', ['lms:LMS_SHAKE_M24_H5,LMS_SHAKE_M24_H5', 'ots:LMOTS_SHAKE_N24_W4'],
      ['LMS_SHAKE_M24_H5 / LMOTS_SHAKE_N24_W4', 'LMS_SHAKE_M24_H5 / LMOTS_SHAKE_N24_W4'] ],
    [ 'two levels, one ots per level', ['lms:LMS_SHA256_M32_H5,LMS_SHA256_M32_H5', 'ots:LMOTS_SHA256_N32_W8,LMOTS_SHA256_N32_W2'],
      ['LMS_SHA256_M32_H5 / LMOTS_SHA256_N32_W8', 'LMS_SHA256_M32_H5 / LMOTS_SHA256_N32_W2'] ],
    [ 'K-LMS long form, lower case names', ['lms:lms_tdmlea_m24_h5', 'ots:lmots_tdmlea_n24_w8'],
      ['LMS_TDMLEA_M24_H5 / LMOTS_TDMLEA_N24_W8'] ],
    [ 'three levels with spaces after commas', ['lms:LMS_LSH256_M32_H5, LMS_LSH256_M32_H5, LMS_LSH256_M32_H5', 'ots:LMOTS_LSH256_N32_W8'],
      [('LMS_LSH256_M32_H5 / LMOTS_LSH256_N32_W8') x 3] ],
);
my $n = 0;
for my $c (@long) {
    my ($name, $opts, $levels) = @$c;
    my $key = "$dir/long" . ++$n . '.pem';
    cmd_ok(hss_genpkey($key, @$opts, "state-file:$dir/long$n.state"), "genpkey long form: $name");
    my $t = pkey_text($key)->{out};
    is(field($t, 'levels'), scalar @$levels, "$name: L = " . scalar @$levels);
    is(field($t, "level $_"), $levels->[$_ - 1], "$name: level $_") for 1 .. @$levels;
    is(field($t, 'maximum signatures'), 2**(5 * @$levels), "$name: maximum 2^(5L)");
}
is(types_of(raw_pub("$dir/long5.pem")), 'e0000310/e0000313', 'K-LMS type codes (docs/params.md): LMS_TDMLEA_M24_H5 = E0000310, LMOTS_TDMLEA_N24_W8 = E0000313');

# ---- Short form: hash/height/winternitz for every hash family of docs/params.md ----
my %short = (  # token => [ LMS name, OTS name, LMS code, OTS code ] for height 5, winternitz 4
    'SHA256'     => [ 'LMS_SHA256_M32_H5',  'LMOTS_SHA256_N32_W4',  0x05,       0x03 ],
    'SHA256/192' => [ 'LMS_SHA256_M24_H5',  'LMOTS_SHA256_N24_W4',  0x0A,       0x07 ],
    'SHAKE'      => [ 'LMS_SHAKE_M32_H5',   'LMOTS_SHAKE_N32_W4',   0x0F,       0x0B ],
    'SHAKE/192'  => [ 'LMS_SHAKE_M24_H5',   'LMOTS_SHAKE_N24_W4',   0x14,       0x0F ],
    'LSH256'     => [ 'LMS_LSH256_M32_H5',  'LMOTS_LSH256_N32_W4',  0xE0000100, 0xE0000102 ],
    'TDMCHAM'    => [ 'LMS_TDMCHAM_M32_H5', 'LMOTS_TDMCHAM_N32_W4', 0xE0000200, 0xE0000202 ],
    'TDMLEA'     => [ 'LMS_TDMLEA_M32_H5',  'LMOTS_TDMLEA_N32_W4',  0xE0000300, 0xE0000302 ],
    'TDMARIA'    => [ 'LMS_TDMARIA_M32_H5', 'LMOTS_TDMARIA_N32_W4', 0xE0000400, 0xE0000402 ],
    'TDMARIA/192' => [ 'LMS_TDMARIA_M24_H5', 'LMOTS_TDMARIA_N24_W4', 0xE0000410, 0xE0000412 ],
    'lsh256/192' => [ 'LMS_LSH256_M24_H5',  'LMOTS_LSH256_N24_W4',  0xE0000110, 0xE0000112 ],
);
for my $token (sort keys %short) {
    my ($lms, $ots, $lc, $oc) = @{ $short{$token} };
    (my $file = lc $token) =~ s{/}{-}g;
    my $key = "$dir/short-$file.pem";
    cmd_ok(hss_genpkey($key, "hash:$token", 'height:5', "state-file:$dir/short-$file.state"), "genpkey hash:$token height:5");
    is(field(pkey_text($key)->{out}, 'level 1'), "$lms / $ots", "hash:$token gives $lms / $ots");
    is(types_of(raw_pub($key)), sprintf('%08x/%08x', $lc, $oc), "hash:$token type codes");
}
{
    my $key = "$dir/short-l2.pem";
    cmd_ok(hss_genpkey($key, 'hash:TDMCHAM', 'height:5,5', 'winternitz:4,8', "state-file:$dir/short-l2.state"),
           'genpkey hash:TDMCHAM height:5,5 winternitz:4,8 (L = 2)');
    my $t = pkey_text($key)->{out};
    is(field($t, 'levels'), 2, 'L = 2');
    is(field($t, 'level 1'), 'LMS_TDMCHAM_M32_H5 / LMOTS_TDMCHAM_N32_W4', 'level 1 from height/winternitz');
    is(field($t, 'level 2'), 'LMS_TDMCHAM_M32_H5 / LMOTS_TDMCHAM_N32_W8', 'level 2 from height/winternitz');
    is(field($t, 'maximum signatures'), 1024, 'maximum 2^(5+5)');
    is(unpack('N', raw_pub($key)), 2, 'u32(L) = 2 in front of the public key');
    $key = "$dir/short-w.pem";
    cmd_ok(hss_genpkey($key, 'height:5,5', 'winternitz:2', "state-file:$dir/short-w.state"), 'one winternitz for two levels');
    $t = pkey_text($key)->{out};
    is(field($t, "level $_"), 'LMS_SHA256_M32_H5 / LMOTS_SHA256_N32_W2', "winternitz:2 applies to level $_") for 1, 2;
}

# ---- state-file: absolute and relative (resolved against the working directory at generation) ----
{
    my $abs = "$dir/abs.state";
    cmd_ok(hss_genpkey("$dir/abs.pem", 'height:5', "state-file:$abs"), 'state-file with an absolute path');
    is(field(pkey_text("$dir/abs.pem")->{out}, 'state file'), $abs, 'text shows the absolute state file');
    ok(-f $abs && -f "$abs.cache", 'state file and tree cache created');

    my $sub = "$dir/cwd";
    mkdir $sub, 0700 or die;
    my $old = getcwd();
    chdir $sub or die;
    my $real = getcwd();
    my $r = hss_genpkey('rel.pem', 'height:5', 'state-file:rel.state');
    chdir $old or die;
    cmd_ok($r, 'state-file with a relative path');
    is(field(pkey_text("$sub/rel.pem")->{out}, 'state file'), "$real/rel.state", 'relative path stored as absolute');
    my ($sr, $sig) = sign_ok("$sub/rel.pem");
    cmd_ok($sr, 'the key with a relative state-file signs from another working directory');
}

# ---- Seeded keys: seed/identifier ----
{
    my $seed = '000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f';
    my $ident = 'a0a1a2a3a4a5a6a7a8a9aaabacadaeaf';
    my @opts = ('height:5', "hexseed:$seed", "hexidentifier:$ident");
    cmd_ok(hss_genpkey("$dir/seeded1.pem", @opts, "state-file:$dir/seeded1.state"), 'genpkey with hexseed and hexidentifier');
    cmd_ok(hss_genpkey("$dir/seeded2.pem", @opts, "state-file:$dir/seeded2.state"), 'the same seed and identifier again, fresh state file');
    my $t = pkey_text("$dir/seeded1.pem")->{out};
    like(field($t, 'seeded'), qr/^yes/, 'pkey -text says seeded');
    is(field($t, 'I'), $ident, 'I is the supplied identifier');
    my ($p1, $p2) = (raw_pub("$dir/seeded1.pem"), raw_pub("$dir/seeded2.pem"));
    ok(defined $p1 && $p1 eq $p2, 'same seed and identifier give the same public key');
    is(field(pkey_text("$dir/seeded2.pem")->{out}, 'next index'), 0, 'the second state file starts at index 0');
    cmd_ok(hss_genpkey("$dir/seeded3.pem", 'height:5', 'hexseed:' . ('ff' x 32), "hexidentifier:$ident",
                       "state-file:$dir/seeded3.state"), 'another seed');
    isnt(raw_pub("$dir/seeded3.pem"), $p1, 'another seed gives another public key');
    cmd_ok(hss_genpkey("$dir/seeded4.pem", 'height:5', "hexidentifier:$ident", "state-file:$dir/seeded4.state"),
           'identifier alone');
    like(field(pkey_text("$dir/seeded4.pem")->{out}, 'seeded'), qr/^yes/, 'an identifier alone also marks the key seeded');

    my ($r, $sig) = sign_ok("$dir/seeded1.pem");
    cmd_fails($r, qr/seeded key refused.*KLMS_ALLOW_SEEDED_KEYS=1/, 'signing with a seeded key is refused by default');
    ok(!-s $sig, 'no signature written');
    ($r, $sig) = sign_ok("$dir/seeded1.pem", env => { KLMS_ALLOW_SEEDED_KEYS => 1 });
    cmd_ok($r, 'signing with KLMS_ALLOW_SEEDED_KEYS=1 works');
    cmd_ok(openssl('pkeyutl', '-verify', '-rawin', '-inkey', "$dir/seeded2.pem", '-in', $msg, '-sigfile', $sig),
           'and the signature verifies under the twin key', qr/Signature Verified Successfully/);
}

# ---- Generation errors: each names the parameter; nothing is created ----
my @errors = (
    [ 'unknown lms name',        ['lms:LMS_SHA256_M32_H7'],  qr/lms: unknown LMS parameter set 'LMS_SHA256_M32_H7'/ ],
    [ 'unknown ots name',        ['ots:LMOTS_FOO'],          qr/ots: unknown LM-OTS parameter set 'LMOTS_FOO'/ ],
    [ 'mixing lms and height',   ['lms:LMS_SHA256_M32_H5', 'height:5'], qr/lms and height: the long form .* cannot be mixed/ ],
    [ 'mixing ots and hash',     ['ots:LMOTS_SHA256_N32_W4', 'hash:SHA256'], qr/ots and hash: the long form .* cannot be mixed/ ],
    [ 'mixing lms and winternitz', ['lms:LMS_SHA256_M32_H5', 'winternitz:4'], qr/lms and winternitz: .*cannot be mixed/ ],
    [ 'bad height',              ['height:7'],               qr/height: '7' is not one of 5, 10, 15, 20, 25/ ],
    [ 'height not a number',     ['height:5x'],              qr/height: '5x' is not one of/ ],
    [ 'bad winternitz',          ['winternitz:3'],           qr/winternitz: '3' is not one of 1, 2, 4, 8/ ],
    [ 'winternitz count',        ['height:5,5,5', 'winternitz:4,4'], qr/winternitz: give one value for every level or one for all 3 levels/ ],
    [ 'ots count',               ['lms:LMS_SHA256_M32_H5,LMS_SHA256_M32_H5,LMS_SHA256_M32_H5', 'ots:LMOTS_SHA256_N32_W4,LMOTS_SHA256_N32_W4'],
      qr/ots: give one LM-OTS set for every level or one for all 3 levels/ ],
    [ 'unknown hash',            ['hash:SHA512'],            qr/hash: unknown hash 'SHA512'/ ],
    [ 'LMS/OTS hash mismatch',   ['lms:LMS_SHA256_M32_H5', 'ots:LMOTS_SHAKE_N32_W4'], qr/ots: LMOTS_SHAKE_N32_W4 does not match LMS_SHA256_M32_H5/ ],
    [ 'LMS/OTS n mismatch',      ['lms:LMS_SHA256_M32_H5', 'ots:LMOTS_SHA256_N24_W4'], qr/ots: LMOTS_SHA256_N24_W4 does not match LMS_SHA256_M32_H5/ ],
    [ 'K-LMS hash mismatch',     ['lms:LMS_TDMCHAM_M32_H5', 'ots:LMOTS_TDMLEA_N32_W4'], qr/ots: LMOTS_TDMLEA_N32_W4 does not match LMS_TDMCHAM_M32_H5/ ],
    [ 'levels of different hashes', ['lms:LMS_SHA256_M32_H5,LMS_LSH256_M32_H5'], qr/lms: every level of a generated key uses one hash and one n/ ],
    [ 'seed too short',          ['height:5', 'hexseed:' . '00' x 31], qr/seed: must be exactly 32 bytes for LMS_SHA256_M32_H5, got 31/ ],
    [ 'seed too long for n=24',  ['hash:SHA256/192', 'height:5', 'hexseed:' . '00' x 32], qr/seed: must be exactly 24 bytes for LMS_SHA256_M24_H5, got 32/ ],
    [ 'identifier too short',    ['height:5', 'hexidentifier:' . '00' x 15], qr/identifier: must be exactly 16 bytes, got 15/ ],
    [ 'identifier too long',     ['height:5', 'hexidentifier:' . '00' x 17], qr/identifier: must be exactly 16 bytes, got 17/ ],
    [ '9 levels (short form)',   ['height:' . join(',', (5) x 9)], qr/height: give 1 to 8 comma-separated heights/ ],
    [ '9 levels (long form)',    ['lms:' . join(',', ('LMS_SHA256_M32_H5') x 9)], qr/lms: give 1 to 8 comma-separated parameter sets/ ],
    [ 'empty lms',               ['lms:'], qr/lms: unknown LMS parameter set ''|lms: give 1 to 8/ ],
);
my @before = state_files();
for my $c (@errors) {
    my ($name, $opts, $re) = @$c;
    my $r = hss_genpkey("$dir/err.pem", @$opts);
    cmd_fails($r, qr/bad key generation or signature parameter.*$re/, "genpkey refuses: $name");
}
is_deeply([state_files()], \@before, 'no failed generation left a state file behind');

# A state file that exists is never overwritten.
{
    my $state = "$dir/exists.state";
    cmd_ok(hss_genpkey("$dir/exists.pem", 'height:5', "state-file:$state"), 'a key with state file exists.state');
    my ($r0) = sign_ok("$dir/exists.pem");
    my @st = stat $state;
    my $bytes = slurp($state);
    my $r = hss_genpkey("$dir/exists2.pem", 'height:5', "state-file:$state");
    cmd_fails($r, qr/state file already exists:.*\Q$state\E belongs to a key that has signed/,
              'genpkey refuses an existing state file');
    is(slurp($state), $bytes, 'the existing state file is unchanged');
    is((stat $state)[1], $st[1], '... same inode');
    is((stat $state)[9], $st[9], '... same modification time');
    is(field(pkey_text("$dir/exists.pem")->{out}, 'next index'), 1, 'the first key still sees its own index');
}
# A state directory writable by group or others is refused (explicit state-file and KLMS_STATE_DIR).
{
    my $open = "$dir/open";
    mkdir $open or die;
    chmod 0777, $open;
    cmd_fails(hss_genpkey("$dir/open1.pem", 'height:5', "state-file:$open/k.state"),
              qr/state file or directory not private:.*state directory is writable by group or others/,
              'state-file in a world-writable directory refused');
    cmd_fails(hss_genpkey("$dir/open2.pem", 'height:5', { env => { KLMS_STATE_DIR => $open } }),
              qr/state directory is writable by group or others/, 'KLMS_STATE_DIR world-writable refused');
    chmod 0770, $open;
    cmd_fails(hss_genpkey("$dir/open3.pem", 'height:5', "state-file:$open/k.state"),
              qr/state directory is writable by group or others/, 'group-writable directory refused');
    opendir my $d, $open or die;
    is(scalar(grep { !/^\./ } readdir $d), 0, 'nothing created there');
}

# ---- openssl list ----
{
    my $r = openssl('list', '-key-managers', '-verbose');
    cmd_ok($r, 'list -key-managers -verbose');
    my ($block) = $r->{out} =~ /(IDs: \{[^}]*HSS-LMS[^}]*\} \@ klms.*?)(?:\n  Name:|\z)/s;
    ok(defined $block, 'our key manager is listed');
    $block //= '';
    my ($ids) = $block =~ /IDs: \{ ([^}]*) \}/;
    # We never register "LMS". OpenSSL 4.0 built with enable-lms registers its own verify-only key
    # manager as LMS:id-alg-hss-lms-hashsig:<OID>, and names shared with ours merge into one
    # algorithm whose IDs then include LMS (3.6's own LMS is only "LMS": no merge; docs/openssl-versions.md
    # "Next to OpenSSL's own LMS").
    my @names = qw(1.2.840.113549.1.9.16.3.17 HSS HSS-LMS id-alg-hss-lms-hashsig);
    my $merged = openssl_at_least(4, 0) && default_has_lms();
    push @names, 'LMS' if $merged;
    is_deeply([sort split /, /, $ids // ''], [sort @names],
              $merged ? 'names: HSS-LMS, HSS, id-alg-hss-lms-hashsig, the OID and (merged from OpenSSL 4.0\'s own LMS) LMS'
                      : 'names: HSS-LMS, HSS, id-alg-hss-lms-hashsig and the OID (never LMS)');
    my ($gen) = $block =~ /settable key generation parameters:\n(.*?)\n    \S/s;
    $gen //= '';
    like($gen, qr/^\s+\Q$_\E: UTF8 encoded string/m, "key generation parameter $_ (UTF-8)")
        for qw(lms ots hash height winternitz state-file);
    like($gen, qr/^\s+\Q$_\E: octet string/m, "key generation parameter $_ (octets)") for qw(seed identifier);
    like($block, qr/^\s+\Q$_\E: /m, "key parameter $_") for qw(remaining-signatures max-signatures state-file levels seeded);
    $r = openssl('list', '-signature-algorithms');
    cmd_ok($r, 'list -signature-algorithms shows HSS-LMS', qr/HSS-LMS.* \@ klms/);
}

# ---- pkey: -text, -text_pub, -pubout, -check, -pubcheck, -noout ----
my $key = "$dir/main.pem";
my $main_state = "$dir/main.state";
cmd_ok(hss_genpkey($key, 'hash:LSH256', 'height:5', "state-file:$main_state"), 'a key for the pkey checks');
{
    my $r = openssl('pkey', '-in', $key, '-text_pub', '-noout');
    cmd_ok($r, 'pkey -text_pub', qr/^HSS\/LMS Public-Key:\nlevels: 1\nlevel 1: LMS_LSH256_M32_H5 \/ LMOTS_LSH256_N32_W4\nI: [0-9a-f]{32}\npublic key:\n/);
    unlike($r->{out}, qr/state|seeded|index/, '-text_pub shows nothing of the private part');
    $r = openssl('pkey', '-in', $key, '-noout');
    cmd_ok($r, 'pkey -noout');
    is($r->{out}, '', '-noout prints nothing');
    $r = openssl('pkey', '-in', $key, '-pubout');
    cmd_ok($r, 'pkey -pubout', qr/\A-----BEGIN PUBLIC KEY-----\n.*-----END PUBLIC KEY-----\n\z/s);
    spew("$dir/main.pub", $r->{out});
    my $der = pem_body($r->{out});
    is(length $der, 80, 'SPKI of an L = 1, m = 32 key is 80 bytes');
    is(tohex(substr($der, 0, 20)), '304e300d060b2a864886f70d0109100311033d00', 'SPKI: OID 1.2.840.113549.1.9.16.3.17, no parameters, BIT STRING');
    is(substr($der, 20), raw_pub($key), '... holding the raw HSS public key');
    $r = openssl('pkey', '-in', $key, '-check', '-noout');
    cmd_ok($r, 'pkey -check', qr/Key is valid/);
    $r = openssl('pkey', '-in', $key, '-pubcheck', '-noout');
    cmd_ok($r, 'pkey -pubcheck', qr/Key is valid/);
    $r = openssl('pkey', '-pubin', '-in', "$dir/main.pub", '-pubcheck', '-noout');
    cmd_ok($r, 'pkey -pubin -pubcheck', qr/Key is valid/);
    $r = openssl('pkey', '-pubin', '-in', "$dir/main.pub", '-text', '-noout');
    cmd_ok($r, 'pkey -pubin -text shows the public part', qr/^HSS\/LMS Public-Key:/);
}

# remaining-signatures decreases, the key file never changes (no index inside), re-encoding copies
# no state.
{
    my $pem_before = slurp($key);
    my $der_before = openssl('pkey', '-in', $key, '-outform', 'DER')->{out};
    for my $i (1 .. 3) { my ($r) = sign_ok($key); cmd_ok($r, "signature $i") }
    my $t = pkey_text($key)->{out};
    is(field($t, 'next index'), 3, 'next index 3 after three signatures');
    is(field($t, 'remaining signatures'), 29, 'remaining 29');
    is(slurp($key), $pem_before, 'the key file is unchanged by signing');
    is(openssl('pkey', '-in', $key, '-outform', 'DER')->{out}, $der_before, 're-encoding after signing gives the same bytes: no index in the key');
    my ($pki) = der_items($der_before);
    my (undef, undef, $octets) = der_items($pki->{content});
    is(substr($octets->{content}, 0, 4), 'KLMS', 'the private octets start with the KLMS magic');
    my $expected_len = 4 + 1 + 1 + 8 + 32 + 16 + 1 + 2 + length($main_state);
    is(length $octets->{content}, $expected_len, 'magic, version, L, types, SEED, I, flag, path: nothing else (no index)');
    like($octets->{content}, qr/\Q$main_state\E\z/, 'ending with the state file path');

    # A copy of the key file shares the state: the copy signs at index 3, the original then at 4.
    spew("$dir/main-copy.pem", $pem_before);
    my ($r, $sig) = sign_ok("$dir/main-copy.pem");
    cmd_ok($r, 'a copy of the key file signs');
    is(unpack('N', substr(slurp($sig), 4, 4)), 3, 'the copy used index 3 (state is not in the key file)');
    ($r, $sig) = sign_ok($key);
    is(unpack('N', substr(slurp($sig), 4, 4)), 4, 'the original then uses index 4');
}

# DER and PEM, in and out.
{
    my $r = openssl('pkey', '-in', $key, '-outform', 'DER', '-out', "$dir/main.der");
    cmd_ok($r, 'pkey -outform DER');
    like(slurp("$dir/main.der"), qr/\A\x30\x82?/, 'DER output');
    is(slurp("$dir/main.der"), pem_body(slurp($key)), 'DER is the PEM body');
    $r = openssl('pkey', '-inform', 'DER', '-in', "$dir/main.der", '-out', "$dir/main-again.pem");
    cmd_ok($r, 'pkey -inform DER to PEM');
    is(slurp("$dir/main-again.pem"), slurp($key), 'PEM -> DER -> PEM is byte-identical');
    $r = openssl('pkey', '-inform', 'DER', '-in', "$dir/main.der", '-text', '-noout');
    cmd_ok($r, 'pkey -inform DER -text', qr/^next index: 5$/m);
    $r = openssl('pkey', '-in', $key, '-pubout', '-outform', 'DER', '-out', "$dir/main.pub.der");
    cmd_ok($r, 'pkey -pubout -outform DER');
    $r = openssl('pkey', '-pubin', '-inform', 'DER', '-in', "$dir/main.pub.der", '-pubout');
    cmd_ok($r, 'pkey -pubin -inform DER -pubout');
    is($r->{out}, slurp("$dir/main.pub"), 'public key DER -> PEM equals -pubout PEM');
    $r = openssl('pkeyutl', '-sign', '-rawin', '-keyform', 'DER', '-inkey', "$dir/main.der", '-in', $msg, '-out', "$dir/der.sig");
    cmd_ok($r, 'pkeyutl -keyform DER signs');
    cmd_ok(openssl('pkeyutl', '-verify', '-rawin', '-pubin', '-keyform', 'DER', '-inkey', "$dir/main.pub.der", '-in', $msg,
                   '-sigfile', "$dir/der.sig"), '... and the DER public key verifies it', qr/Signature Verified Successfully/);
}

# "state: missing" after the state file is deleted; pkey still succeeds.
{
    my $k = "$dir/gone.pem";
    cmd_ok(hss_genpkey($k, 'height:5', "state-file:$dir/gone.state"), 'a key whose state file will go');
    unlink "$dir/gone.state" or die;
    my $r = pkey_text($k);
    cmd_ok($r, 'pkey -text exits 0 without the state file');
    is(field($r->{out}, 'state'), 'missing', 'text says "state: missing"');
    unlike($r->{out}, qr/^next index|^remaining signatures/m, 'no index or remaining count shown');
    is(field($r->{out}, 'maximum signatures'), 32, 'maximum still shown');
    cmd_ok(openssl('pkey', '-in', $k, '-pubout'), 'pkey -pubout still works', qr/BEGIN PUBLIC KEY/);
    my ($sr) = sign_ok($k);
    cmd_fails($sr, qr/state file missing:.*opening state file \Q$dir\E\/gone\.state: state file missing/,
              'signing without the state file fails: state file missing');
    ok(!-e "$dir/gone.state", 'signing did not recreate the state file');
}

# ---- Encrypted PKCS#8 ----
{
    my $seed = '5e' x 32;
    my $k = "$dir/enc.pem";
    my $r = openssl('genpkey', '-algorithm', 'HSS-LMS', '-pkeyopt', 'height:5', '-pkeyopt', "hexseed:$seed",
                    '-pkeyopt', "state-file:$dir/enc.state", '-aes256', '-pass', 'pass:correct horse', '-out', $k);
    cmd_ok($r, 'genpkey -aes256 -pass pass:...');
    my $pem = slurp($k);
    like($pem, qr/\A-----BEGIN ENCRYPTED PRIVATE KEY-----\n/, 'ENCRYPTED PRIVATE KEY');
    my $der = pem_body($pem);
    unlike($der, qr/KLMS/, 'the KLMS magic is not in the file');
    ok(index($der, unhex($seed)) < 0, 'the seed is not in the file');
    ok(index($der, "$dir/enc.state") < 0, 'the state file path is not in the file');
    $r = openssl('asn1parse', '-in', $k);
    cmd_ok($r, 'asn1parse of the encrypted key', qr/:PBES2\n.*:PBKDF2\n.*:aes-256-cbc\n/s);
    $r = openssl('pkey', '-in', $k, '-passin', 'pass:correct horse', '-text', '-noout');
    cmd_ok($r, 'the right passphrase decrypts', qr/^seeded: yes/m);
    like($r->{out}, qr/^state file: \Q$dir\E\/enc\.state$/m, '... and the key is whole');
    $r = openssl('pkey', '-in', $k, '-passin', 'pass:wrong', '-noout');
    cmd_fails($r, cannot_load_re('key', $k), 'a wrong passphrase fails');
    like($r->{err}, qr/maybe wrong password|bad decrypt|malformed/, '... saying why');
    is($r->{out}, '', '... printing nothing');
    $r = openssl('pkey', '-in', $k, '-passin', 'pass:correct horse', '-aes-128-cbc', '-passout', 'pass:other', '-out', "$dir/enc2.pem");
    cmd_ok($r, 'pkey -aes-128-cbc re-encrypts');
    like(slurp("$dir/enc2.pem"), qr/BEGIN ENCRYPTED PRIVATE KEY/, '... still encrypted');
    cmd_ok(openssl('asn1parse', '-in', "$dir/enc2.pem"), '... with AES-128-CBC', qr/:aes-128-cbc\n/);
    cmd_ok(openssl('pkey', '-in', "$dir/enc2.pem", '-passin', 'pass:other', '-pubout'), 'the new passphrase works', qr/BEGIN PUBLIC KEY/);
    cmd_fails(openssl('pkey', '-in', "$dir/enc2.pem", '-passin', 'pass:correct horse', '-noout'), cannot_load_re('key'),
              'the old passphrase does not');
    is(raw_pub("$dir/enc2.pem", '-passin', 'pass:other'), raw_pub($k, '-passin', 'pass:correct horse'), 'same public key after re-encryption');
    $r = openssl('pkey', '-in', $k, '-passin', 'pass:correct horse', '-outform', 'DER', '-out', "$dir/enc-plain.der");
    cmd_ok($r, 'decrypt to plain DER');
    like(slurp("$dir/enc-plain.der"), qr/KLMS/, 'the plain key holds the KLMS octets');
    $r = openssl('pkeyutl', '-sign', '-rawin', '-inkey', $k, '-passin', 'pass:correct horse', '-in', $msg, '-out', "$dir/enc.sig",
                 { env => { KLMS_ALLOW_SEEDED_KEYS => 1 } });
    cmd_ok($r, 'pkeyutl signs with the encrypted key');
    # EncryptedPrivateKeyInfo as DER (openssl 3.0's pkey writes cipher output only as PEM).
    spew("$dir/enc.der", $der);
    cmd_ok(openssl('pkey', '-inform', 'DER', '-in', "$dir/enc.der", '-passin', 'pass:correct horse', '-pubout'),
           'encrypted DER input', qr/BEGIN PUBLIC KEY/);
    cmd_fails(openssl('pkey', '-inform', 'DER', '-in', "$dir/enc.der", '-passin', 'pass:nope', '-noout'),
              cannot_load_re('key'), 'encrypted DER input, wrong passphrase');
}

# ---- Malformed keys are refused cleanly ----
# OpenSSL 3.0's key loading (OSSL_STORE) drops the decoders' own errors and says "Could not read
# key ... unsupported"; klms-cms-sign decodes with OSSL_DECODER directly and shows the provider's
# reason, so both are checked.
my $cms_sign = tool('klms-cms-sign');
my $root_key = "$dir/root.pem";
cmd_ok(hss_genpkey($root_key, 'height:5', "state-file:$dir/root.state"), 'a signer key for klms-cms-sign');
cmd_ok(openssl('req', '-new', '-x509', '-key', $root_key, '-subj', '/CN=keys.t', '-days', 2, '-out', "$dir/root.crt"),
       'and its certificate');
{
    my $der = slurp("$dir/main.der");
    my ($pki) = der_items($der);
    my ($ver, $alg, $oct, $pub) = der_items($pki->{content});
    my $priv = $oct->{content};
    my $mk = sub {
        my (%o) = @_;
        return der_tlv(0x30, ($o{ver} // $ver->{raw}) . ($o{alg} // $alg->{raw}) . der_tlv(0x04, $o{priv} // $priv)
                       . ($o{attr} // '') . ($o{nopub} ? '' : der_tlv(0x81, $o{pub} // $pub->{content})));
    };
    my $foreign = "\x00\x00\x00\x01" . pack('N', 5) . pack('N', 3) . ("\x11" x 48);  # someone else's SEED||I layout
    my @bad = (
        [ 'truncated DER', substr($der, 0, -10), undef ],
        [ 'truncated to the header', substr($der, 0, 3), undef ],
        [ 'private octets extended by one byte', $mk->(priv => $priv . "\0"), qr/malformed or foreign HSS\/LMS private key/ ],
        [ 'private octets truncated by one byte', $mk->(priv => substr($priv, 0, -1)), qr/malformed or foreign HSS\/LMS private key/ ],
        [ 'public key extended by one byte', $mk->(pub => $pub->{content} . "\0"), qr/malformed/ ],
        [ 'magic bit-flipped', $mk->(priv => "KLMs" . substr($priv, 4)), qr/malformed or foreign HSS\/LMS private key/ ],
        [ 'format version bit-flipped', $mk->(priv => substr($priv, 0, 4) . chr(ord(substr($priv, 4, 1)) ^ 1) . substr($priv, 5)),
          qr/malformed or foreign HSS\/LMS private key/ ],
        [ 'level count 0', $mk->(priv => substr($priv, 0, 5) . "\0" . substr($priv, 6)), qr/malformed or foreign HSS\/LMS private key/ ],
        [ 'LMS type bit-flipped to an unknown code', $mk->(priv => substr($priv, 0, 6) . pack('N', 0xE0000105) . substr($priv, 10)),
          qr/unknown LMS parameter set/ ],
        [ 'I bit-flipped (differs from the public key)',
          $mk->(priv => substr($priv, 0, 46) . chr(ord(substr($priv, 46, 1)) ^ 0x80) . substr($priv, 47)),
          qr/malformed or foreign HSS\/LMS private key/ ],
        [ 'public key OTS type bit-flipped', $mk->(pub => substr($pub->{content}, 0, 12) . chr(ord(substr($pub->{content}, 12, 1)) ^ 1)
                                                          . substr($pub->{content}, 13)), qr/malformed|unknown/ ],
        [ 'relative state path', $mk->(priv => substr($priv, 0, -length($main_state)) . ('x' . substr($main_state, 1))),
          qr/malformed or foreign HSS\/LMS private key/ ],
        [ 'PKCS#8 v1 without publicKey', $mk->(ver => der_tlv(0x02, "\0"), nopub => 1), qr/malformed or foreign HSS\/LMS private key/ ],
        [ 'attributes present', $mk->(attr => der_tlv(0xa0, '')), qr/malformed or foreign HSS\/LMS private key/ ],
        [ 'our OID, a foreign private-key layout (v1)', $mk->(ver => der_tlv(0x02, "\0"), priv => $foreign, nopub => 1),
          qr/malformed or foreign HSS\/LMS private key/ ],
        [ 'our OID, a foreign private-key layout (v2 with our public key)', $mk->(priv => $foreign),
          qr/malformed or foreign HSS\/LMS private key/ ],
        [ 'our OID, an OCTET STRING-wrapped foreign layout', $mk->(priv => der_tlv(0x04, $foreign)),
          qr/malformed or foreign HSS\/LMS private key/ ],
        [ 'AlgorithmIdentifier with NULL parameters', $mk->(alg => der_tlv(0x30, $alg->{content} . "\x05\x00")), qr/malformed or foreign HSS\/LMS private key/ ],
    );
    for my $b (@bad) {
        my ($name, $bytes, $reason) = @$b;
        (my $file = lc $name) =~ s/[^a-z0-9]+/-/g;
        spew("$dir/bad-$file.der", $bytes);
        spew("$dir/bad-$file.pem", pem_wrap('PRIVATE KEY', $bytes));
        cmd_fails(openssl('pkey', '-inform', 'DER', '-in', "$dir/bad-$file.der", '-noout'),
                  cannot_load_re('key'), "private key DER, $name: refused");
        cmd_fails(openssl('pkey', '-in', "$dir/bad-$file.pem", '-noout'),
                  cannot_load_re('key'), "private key PEM, $name: refused");
        cmd_fails(run_cmd([$cms_sign, '-signer', "$dir/root.crt", '-inkey', "$dir/bad-$file.der", '-in', $msg, '-out', "$dir/x.cms"]),
                  $reason // qr/cannot read a private key/, "private key, $name: the decoder's reason", status => 1)
            if defined $reason;
    }
    # Trailing bytes after the PEM's DER object: in 3.0 our decoder gets them and refuses; in 3.5,
    # 3.6 and 4.0 OpenSSL's own PEM/PKCS#8 decoding stops at the end of the DER object, so the
    # provider never sees them and the (intact) key loads: the same public key as without them
    # (3.1 to 3.4 not tested, taken as 3.0).
    spew("$dir/bad-trailing.pem", pem_wrap('PRIVATE KEY', $der . "\0\0"));
    if (openssl_at_least(3, 5)) {
        my $r = openssl('pkey', '-in', "$dir/bad-trailing.pem", '-pubout');
        cmd_ok($r, 'OpenSSL 3.5+: private key PEM with trailing bytes after the DER: OpenSSL drops them, the key loads');
        is($r->{out}, openssl('pkey', '-in', $key, '-pubout')->{out}, '... and it is the same key');
    } else {
        cmd_fails(openssl('pkey', '-in', "$dir/bad-trailing.pem", '-noout'), cannot_load_re('key'),
                  'private key PEM with trailing bytes after the DER: refused');
    }
    # A damaged PEM armour.
    my $pem = slurp($key);
    spew("$dir/bad-cut.pem", substr($pem, 0, length($pem) / 2) . "\n-----END PRIVATE KEY-----\n");
    cmd_fails(openssl('pkey', '-in', "$dir/bad-cut.pem", '-noout'), cannot_load_re('key'), 'PEM cut in the middle: refused');
    (my $garbled = $pem) =~ s/^(.{10})./$1*/m;
    spew("$dir/bad-garbled.pem", $garbled);
    cmd_fails(openssl('pkey', '-in', "$dir/bad-garbled.pem", '-noout'), cannot_load_re('key'), 'PEM with a bad base64 character: refused');
    cmd_fails(openssl('pkey', '-inform', 'DER', '-in', $key, '-noout'), cannot_load_re('key'), 'PEM given as DER: refused');

    # Every single-bit flip of the DER private key: a clean refusal, or (where nothing can tell:
    # SEED, the seeded flag, the path's characters, the root T) a key; never a crash.
    my $oct_start = index($der, $priv);
    my $pub_start = length($der) - length($pub->{content});  # the [1] content: 00 || raw public key
    my %may_load;
    $may_load{$_} = 1 for ($oct_start + 14 .. $oct_start + 14 + 31);                       # SEED
    $may_load{ $oct_start + 62 } = 1;                                                       # seeded flag
    $may_load{$_} = 1 for ($oct_start + 66 .. $oct_start + 64 + length($main_state));       # path (not its leading '/')
    $may_load{$_} = 1 for ($pub_start + 29 .. length($der) - 1);                            # T of the public key
    my ($crashes, $wrong, $tried) = (0, 0, 0);
    for my $i (0 .. length($der) - 1) {
        my $bit = 1 << ($i % 8);
        flip_byte("$dir/main.der", "$dir/flip.der", $i, $bit);
        my $r = openssl('pkey', '-inform', 'DER', '-in', "$dir/flip.der", '-noout');
        $tried++;
        if ($r->{signal} || defined sanitizer_report($r) || ($r->{status} != 0 && $r->{status} != 1)) {
            $crashes++;
            diag("flip at $i: " . ($r->{signal} ? "signal $r->{signal}" : "status $r->{status}") . "\n$r->{err}");
        } elsif ($r->{status} == 0 && !$may_load{$i}) {
            $wrong++;
            diag("flip at byte $i (mask $bit) was accepted");
        } elsif ($r->{status} == 1 && $r->{err} !~ cannot_load_re('key')) {
            $wrong++;
            diag("flip at $i: unexpected error text: $r->{err}");
        }
    }
    is($crashes, 0, "no crash over $tried single-bit flips of the DER private key");
    is($wrong, 0, 'every flip outside SEED, flag, path characters and T is refused');
    # A key whose root T was flipped decodes, but cannot sign: its state file belongs to the real key.
    flip_byte("$dir/main.der", "$dir/tflip.der", -1, 0x01);
    cmd_fails(openssl('pkeyutl', '-sign', '-rawin', '-keyform', 'DER', '-inkey', "$dir/tflip.der", '-in', $msg, '-out', "$dir/tflip.sig"),
              qr/state file belongs to another key/, 'a key with a flipped public key cannot sign with the real key\'s state');
}
# Public keys.
{
    my $spki = slurp("$dir/main.pub.der");
    my $raw = substr($spki, 20);
    my @bad = (
        [ 'truncated DER', substr($spki, 0, -10) ],
        [ 'raw key truncated by one byte', hss_spki_der(substr($raw, 0, -1)) ],
        [ 'raw key extended by one byte', hss_spki_der($raw . "\0") ],
        [ 'unknown LMS type', hss_spki_der(substr($raw, 0, 4) . pack('N', 0x19) . substr($raw, 8)) ],
        [ 'unknown LM-OTS type', hss_spki_der(substr($raw, 0, 8) . pack('N', 0x11) . substr($raw, 12)) ],
        [ 'L = 0', hss_spki_der(pack('N', 0) . substr($raw, 4)) ],
        [ 'L = 9', hss_spki_der(pack('N', 9) . substr($raw, 4)) ],
        [ 'parameters present (NULL)', hss_spki_der($raw, params => "\x05\x00") ],
        [ 'parameters present (empty SEQUENCE)', hss_spki_der($raw, params => "\x30\x00") ],
        [ 'BIT STRING with unused bits', der_tlv(0x30, substr($spki, 2, 15) . der_tlv(0x03, "\x01" . $raw)) ],
        [ 'RFC 8708 OCTET STRING with trailing bytes', hss_spki_der(der_tlv(0x04, $raw) . "\0", rfc8708 => 0) ],
        [ 'RFC 8708 OCTET STRING truncated', hss_spki_der(der_tlv(0x04, substr($raw, 0, -1))) ],
    );
    for my $b (@bad) {
        my ($name, $bytes) = @$b;
        (my $file = lc $name) =~ s/[^a-z0-9]+/-/g;
        spew("$dir/badpub-$file.der", $bytes);
        spew("$dir/badpub-$file.pem", pem_wrap('PUBLIC KEY', $bytes));
        cmd_fails(openssl('pkey', '-pubin', '-inform', 'DER', '-in', "$dir/badpub-$file.der", '-noout'),
                  cannot_load_re('key of Public Key'), "public key DER, $name: refused");
        cmd_fails(openssl('pkey', '-pubin', '-in', "$dir/badpub-$file.pem", '-noout'),
                  cannot_load_re('key of Public Key'), "public key PEM, $name: refused");
        cmd_fails(openssl('pkeyutl', '-verify', '-rawin', '-pubin', '-keyform', 'DER', '-inkey', "$dir/badpub-$file.der",
                          '-in', $msg, '-sigfile', "$dir/der.sig"), cannot_load_re('public key'),
                  "pkeyutl -verify with it, $name: refused");
    }
    my ($crashes, $wrong) = (0, 0);
    for my $i (0 .. length($spki) - 1) {
        flip_byte("$dir/main.pub.der", "$dir/flip.pub.der", $i, 1 << ($i % 8));
        my $r = openssl('pkey', '-pubin', '-inform', 'DER', '-in', "$dir/flip.pub.der", '-noout');
        if ($r->{signal} || defined sanitizer_report($r) || ($r->{status} != 0 && $r->{status} != 1)) {
            $crashes++;
            diag("flip at $i: status $r->{status} signal $r->{signal}\n$r->{err}");
        } elsif ($r->{status} == 0 && $i < 32) {
            $wrong++;  # DER header, L and the type codes must never load; I and T are free bytes
            diag("public key flip at byte $i was accepted");
        }
    }
    is($crashes, 0, 'no crash over single-bit flips of the DER public key');
    is($wrong, 0, 'every flip in the DER header, L or the type codes is refused');
}

done_testing();
