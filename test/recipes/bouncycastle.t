# "Verify elsewhere" (docs/firmware.md): klms signatures over a firmware-like file, verified by
# BouncyCastle's own HSS/LMS code from the raw RFC 8554 public key and signature, extracted as the
# page says. test/support/HssVerify.java is compiled at test time (javac; without javac, java's
# source-file mode) against Debian's libbcprov-java (/usr/share/java/bcprov.jar). BouncyCastle 1.72
# (Debian 12) knows only the SHA-256 M32 LMS types (0x05-0x09): it verifies those, L = 1 and 2,
# and refuses a flipped bit; for the SHA-256/192 (M24) and SHAKE sets it cannot read the public key
# (it throws; HssVerify prints "ERROR <exception>" and exits 2). Skipped, with the reason, only when
# java or the jar is missing (scripts/install-deps.sh installs them).
use strict;
use warnings;
use Test::More;
use KlmsTest qw(:DEFAULT :cli);
use File::Spec;
use Time::HiRes qw(time);

my $BCPROV = '/usr/share/java/bcprov.jar';
sub which { my ($p) = @_; for (File::Spec->path) { return "$_/$p" if -x "$_/$p" } return undef }
my ($java, $javac) = (which('java'), which('javac'));
plan skip_all => 'no java in PATH (scripts/install-deps.sh installs default-jdk-headless)' unless $java;
plan skip_all => "no $BCPROV (scripts/install-deps.sh installs libbcprov-java)" unless -r $BCPROV;
# The version the jar's file name says (Debian: bcprov.jar -> bcprov-1.72.jar).
my ($bc_version) = (readlink($BCPROV) // '') =~ /bcprov-(\d+\.\d+)/;
$bc_version //= 'unknown';
diag("BouncyCastle $bc_version, java $java" . ($javac ? ", javac $javac" : ' (no javac: source-file mode)'));

my $dir = private_dir();
mkdir "$dir/state", 0700 or die;
$ENV{KLMS_STATE_DIR} = "$dir/state";
my $source = "$ENV{KLMS_SOURCE_DIR}/test/support/HssVerify.java";

my @run;
if ($javac) {
    my $t0 = time;
    my $r = run_cmd([$javac, '-cp', $BCPROV, '-d', "$dir/classes", $source]);
    cmd_ok($r, sprintf('javac HssVerify.java (%.1f s)', time - $t0)) or BAIL_OUT('cannot compile the verifier');
    @run = ($java, '-cp', "$BCPROV:$dir/classes", 'HssVerify');
} else {
    @run = ($java, '-cp', $BCPROV, $source);
}

# A firmware-like image: 4 MiB and a bit, with a header.
my $image = "$dir/firmware.bin";
{
    my $seed = 1;
    my $body = join '', map { $seed = ($seed * 1103515245 + 12345) & 0x7fffffff; pack('N', $seed) } 1 .. 1024 * 1024;
    spew($image, "FWIMG\x00\x01\x00" . $body . "tail");
}

# The raw RFC 8554 public key as docs/firmware.md extracts it: the SubjectPublicKeyInfo's BIT STRING
# after its unused-bits byte, which is everything after the 20-byte DER header (docs/design.md
# "Encodings"; every HSS public key is 52 or 60 bytes, so the header never changes length).
sub raw_public_key {
    my ($key, $out, $name) = @_;
    my $r = openssl('pkey', '-in', $key, '-pubout', '-outform', 'DER');
    my ($spki) = der_items($r->{out});
    my (undef, $bits) = der_items($spki->{content});
    my $raw = substr($bits->{content}, 1);
    is(tohex(substr($r->{out}, 20)), tohex($raw), "$name: the BIT STRING is what `tail -c +21` of the DER gives");
    my ($hex) = openssl('pkey', '-in', $key, '-text', '-noout')->{out} =~ /^public key:\n((?:    [0-9a-f:]+\n)+)/m;
    is(tohex($raw), ($hex // '') =~ s/[\s:]//gr, "$name: ... the 'public key' of pkey -text");
    spew($out, $raw);
}

# All the checks in one JVM run (its start costs most of this recipe's time): [pub, msg, sig].
my @cases;
sub check { my ($case, @files) = @_; push @cases, { name => $case->{name}, expect => $case->{expect}, files => \@files } }

my @keys = (
    { name => 'sha256-h5-w4', opts => ['lms:LMS_SHA256_M32_H5', 'ots:LMOTS_SHA256_N32_W4'], bc => 1 },
    { name => 'sha256-h10-w8', opts => ['lms:LMS_SHA256_M32_H10', 'ots:LMOTS_SHA256_N32_W8'], bc => 1 },
    { name => 'sha256-l2', opts => ['lms:LMS_SHA256_M32_H5,LMS_SHA256_M32_H5', 'ots:LMOTS_SHA256_N32_W2'], bc => 1 },
    { name => 'sha256-192-h5-w4', opts => ['lms:LMS_SHA256_M24_H5', 'ots:LMOTS_SHA256_N24_W4'], bc => 0 },
    { name => 'shake-h5-w4', opts => ['lms:LMS_SHAKE_M32_H5', 'ots:LMOTS_SHAKE_N32_W4'], bc => 0 },
);
# BouncyCastle 1.72 has only the SHA-256 M32 types; a later jar is expected to verify them all
# (the M24 and SHAKE types of SP 800-208 came in a later release; which one is not checked here).
my $bc_knows_all = $bc_version ne 'unknown' && $bc_version !~ /^1\.(?:[0-6]\d|7[0-2])$/;
flip_byte($image, "$dir/image.bad", 3 * 1024 * 1024, 0x01);
for my $k (@keys) {
    my $key = "$dir/$k->{name}.key";
    my ($pub, $sig) = ("$dir/$k->{name}.pub.raw", "$dir/$k->{name}.sig");
    cmd_ok(hss_genpkey($key, @{ $k->{opts} }, "state-file:$dir/$k->{name}.state"), "$k->{name}: genpkey");
    raw_public_key($key, $pub, $k->{name});
    cmd_ok(openssl('pkeyutl', '-sign', '-rawin', '-inkey', $key, '-in', $image, '-out', $sig),
           "$k->{name}: pkeyutl -sign -rawin of the image (the raw HSS signature)");
    cmd_ok(openssl('pkeyutl', '-verify', '-rawin', '-inkey', $key, '-in', $image, '-sigfile', $sig),
           "$k->{name}: klms verifies it", qr/Signature Verified Successfully/);
    $k->{expect} = $k->{bc} || $bc_knows_all ? 'VERIFIED' : 'ERROR';
    check($k, $pub, $image, $sig);
    next if $k->{expect} eq 'ERROR';
    flip_byte($sig, "$dir/$k->{name}.bad.sig", 4 + 4 + 4 + 5, 0x10);  # a bit of the randomizer C
    check({ %$k, name => "$k->{name}, a flipped signature bit", expect => 'REJECTED' }, $pub, $image, "$dir/$k->{name}.bad.sig");
    check({ %$k, name => "$k->{name}, a flipped image bit", expect => 'REJECTED' }, $pub, "$dir/image.bad", $sig);
}
# Another key of the same parameter sets.
cmd_ok(hss_genpkey("$dir/other.key", 'lms:LMS_SHA256_M32_H5', 'ots:LMOTS_SHA256_N32_W4', "state-file:$dir/other.state"), 'another key');
raw_public_key("$dir/other.key", "$dir/other.pub.raw", 'other');
check({ name => 'another key\'s public key', expect => 'REJECTED' }, "$dir/other.pub.raw", $image, "$dir/sha256-h5-w4.sig");

my $t0 = time;
my $r = run_cmd([@run, map { @{ $_->{files} } } @cases]);
diag(sprintf('one JVM run for %d signatures: %.2f s', scalar @cases, time - $t0));
ok(!$r->{signal}, 'the verifier ran') or diag("signal $r->{signal}: $r->{err}");
is($r->{status}, 2, 'exit 2: some parameter sets are errors, the rest verified or rejected') if !$bc_knows_all;
# One line per triple, in order: "SIGNATURE: RESULT".
my @said = split /\n/, $r->{out};
is(scalar @said, scalar @cases, 'one result line per signature');
for my $i (0 .. $#cases) {
    my $c = $cases[$i];
    my ($file, $got) = ($said[$i] // '') =~ /^(.*?): (VERIFIED|REJECTED|ERROR .*)$/;
    $got = 'nothing' unless defined $file && $file eq $c->{files}[2];
    my $name = $c->{name};
    if ($c->{expect} eq 'ERROR') {
        # BouncyCastle 1.72 does not know the type code: it fails reading the key, never says VERIFIED.
        like($got, qr/^ERROR java\.lang\.\w+/, "$name: BouncyCastle $bc_version cannot read this parameter set ($got)");
    } else {
        is($got, $c->{expect}, "$name: BouncyCastle $bc_version says $c->{expect}");
    }
}

done_testing();
