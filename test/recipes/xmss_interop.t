# XMSS and XMSS^MT against independent implementations, both directions, through raw RFC 8391 keys
# and signatures (docs/xmss.md "Interoperability"): BouncyCastle 1.72 (its own code,
# test/support/XmssInterop.java: one JVM per direction) for XMSS-SHA2_10_256 and XMSSMT-SHA2_20/4_256,
# Botan 2 (the `botan` CLI, its own OID and PEM) for XMSS-SHA2_10_256 — the h = 10 trees of the sets
# each supports (docs/xmss.md lists them). klms signs through openssl pkeyutl and the raw keys come from
# klms-raw; their signatures are verified by openssl pkeyutl -verify with the provider. A signature
# with one bit flipped must be refused on each side, so each check can fail. Cost: about 10 s (two
# JVMs, one javac, two BouncyCastle and one Botan key generation). Skipped, with the reason, only
# without java, the jar or botan (scripts/install-deps.sh installs them).
use strict;
use warnings;
use Test::More;
use File::Spec;
use MIME::Base64 qw(decode_base64 encode_base64);
use KlmsTest qw(:DEFAULT :cli);

my $BCPROV = '/usr/share/java/bcprov.jar';
sub which { my ($p) = @_; for (File::Spec->path) { return "$_/$p" if -x "$_/$p" } return undef }
my ($java, $javac, $botan) = (which('java'), which('javac'), which('botan'));
plan skip_all => 'no java in PATH (scripts/install-deps.sh installs default-jdk-headless)' unless $java;
plan skip_all => "no $BCPROV (scripts/install-deps.sh installs libbcprov-java)" unless -r $BCPROV;
plan skip_all => 'no botan in PATH (scripts/install-deps.sh installs botan)' unless $botan;

my $dir = private_dir();
my $raw_tool = tool('klms-raw');
my $state_tool = tool('klms-state');
spew("$dir/msg", "firmware image 1.2.3\n" x 100);
my $source = "$ENV{KLMS_SOURCE_DIR}/test/support/XmssInterop.java";
# Every foreign program under a deadline: a JVM or Botan that loops fails the recipe, not CI's clock.
my @limit = ('timeout', '-k', '5', '300');
my @bc;
if ($javac) {
    cmd_ok(run_cmd([$javac, '-cp', $BCPROV, '-d', "$dir/classes", $source]), 'javac XmssInterop.java')
        or BAIL_OUT('cannot compile the BouncyCastle driver');
    @bc = (@limit, $java, '-cp', "$BCPROV:$dir/classes", 'XmssInterop');
} else {
    @bc = (@limit, $java, '-cp', $BCPROV, $source);
}

sub flipped {
    my ($sig) = @_;
    return flip_byte($sig, "$sig.flipped", int((-s $sig) / 2), 0x10);
}
sub klms_verifies {
    my ($pub, $msg, $sig) = @_;
    my $r = openssl('pkeyutl', '-verify', '-rawin', '-pubin', '-inkey', $pub, '-in', $msg, '-sigfile', $sig);
    return $r->{status} == 0 && $r->{out} =~ /Signature Verified Successfully/;
}
# Botan 2's SubjectPublicKeyInfo for XMSS: its own OID 0.4.0.127.0.15.1.1.13.0, no parameters, and
# an OCTET STRING holding the raw key inside the BIT STRING.
sub botan_spki {
    my ($raw) = @_;
    my $octets = "\x04" . chr(length $raw) . $raw;
    my $bits = "\x03" . chr(1 + length $octets) . "\x00" . $octets;
    my $alg = "\x30\x0b\x06\x09" . pack('H*', '04007f000f01010d00');
    my $body = $alg . $bits;
    return pem_wrap('PUBLIC KEY', "\x30" . chr(length $body) . $body);
}
sub botan_raw_key {
    my ($pem) = @_;
    my ($spki) = der_items(pem_body(slurp($pem)));
    my (undef, $bits) = der_items($spki->{content});
    my ($octets) = der_items(substr($bits->{content}, 1));
    return $octets->{content};
}

# ---- klms signs, BouncyCastle and Botan verify ----
my @klms = (
    { name => 'XMSS-SHA2_10_256', alg => 'XMSS', scheme => 'XMSS', indices => [0, 1, 2] },
    { name => 'XMSSMT-SHA2_20/4_256', alg => 'XMSSMT', scheme => 'XMSSMT', indices => [0, 31, 32], advance => 30 },
);
my @quads;
my %expected;
for my $k (@klms) {
    my $tag = $k->{name} =~ s{/}{-}r;
    my $key = "$dir/$tag.key";
    cmd_ok(openssl('genpkey', '-algorithm', $k->{alg}, '-pkeyopt', "params:$k->{name}", '-pkeyopt',
                   "state-file:$dir/$tag.state", '-out', $key), "klms: genpkey $k->{name}");
    cmd_ok(openssl('pkey', '-in', $key, '-pubout', '-out', "$dir/$tag.pub"), 'pkey -pubout');
    cmd_ok(run_cmd([$raw_tool, 'raw', "$dir/$tag.pub", "$dir/$tag.raw"]), 'klms-raw raw');
    $k->{raw} = "$dir/$tag.raw";
    for my $i (@{ $k->{indices} }) {
        if ($i > 0 && $k->{advance} && $i == 31) {
            cmd_ok(run_cmd([$state_tool, 'adopt', '--advance', $k->{advance}, '--yes-i-destroyed-the-original',
                            "$dir/$tag.state"]), "skip to index 31 (the last leaf of the first bottom tree)");
        }
        my $sig = "$dir/$tag.klms.$i.sig";
        cmd_ok(openssl('pkeyutl', '-sign', '-rawin', '-inkey', $key, '-in', "$dir/msg", '-out', $sig), "klms signs at $i");
        push @quads, $k->{scheme}, $k->{raw}, "$dir/msg", $sig;
        $expected{$sig} = 'VERIFIED';
    }
    my $bad = flipped("$dir/$tag.klms.0.sig");
    push @quads, $k->{scheme}, $k->{raw}, "$dir/msg", $bad;
    $expected{$bad} = 'REJECTED';
}
{
    my $r = run_cmd([@bc, 'verify', @quads]);
    my %got = $r->{out} =~ /^(\S+): (VERIFIED|REJECTED|ERROR.*)$/mg;
    for my $sig (sort keys %expected) {
        is($got{$sig}, $expected{$sig}, "BouncyCastle: klms's " . ($sig =~ s{.*/}{}r) . " $expected{$sig}")
            or diag(cmd_diag($r));
    }
}
{
    my $xmss = $klms[0];
    spew("$dir/botan.pub", botan_spki(slurp($xmss->{raw})));
    for my $i (@{ $xmss->{indices} }) {
        my $sig = "$dir/XMSS-SHA2_10_256.klms.$i.sig";
        spew("$sig.b64", encode_base64(slurp($sig), ''));
        cmd_ok(run_cmd([@limit, $botan, 'verify', "$dir/botan.pub", "$dir/msg", "$sig.b64"]), "Botan: klms's signature at $i is valid",
               qr/Signature is valid/);
    }
    my $bad = "$dir/XMSS-SHA2_10_256.klms.0.sig.flipped";
    spew("$bad.b64", encode_base64(slurp($bad), ''));
    my $r = run_cmd([@limit, $botan, 'verify', "$dir/botan.pub", "$dir/msg", "$bad.b64"]);
    like($r->{out} . $r->{err}, qr/Signature is invalid/, 'Botan: the flipped one is invalid');
}

# ---- BouncyCastle and Botan sign, klms verifies ----
{
    my @groups = (['XMSS', '1', "$dir/bc-xmss", 0, 1, 7], ['XMSSMT', '2', "$dir/bc-xmssmt", 0, 31, 32]);
    my @args = map { (@{$_}[0, 1], "$dir/msg", @{$_}[2 .. $#$_], '+') } @groups;
    pop @args;
    cmd_ok(run_cmd([@bc, 'sign', @args]), 'BouncyCastle: two keys, six signatures (one JVM)');
    for my $g (@groups) {
        my ($scheme, undef, $prefix, @indices) = @$g;
        my $pub = "$prefix.pem";
        cmd_ok(run_cmd([$raw_tool, 'spki', '--scheme', lc $scheme, "$prefix.pub", $pub]), "klms-raw spki of BouncyCastle's $scheme key");
        for my $i (@indices) {
            ok(klms_verifies($pub, "$dir/msg", "$prefix.$i.sig"), "klms: BouncyCastle's $scheme signature at $i verifies");
        }
        ok(!klms_verifies($pub, "$dir/msg", flipped("$prefix.$indices[0].sig")), "klms: a flipped one is refused");
    }
}
{
    cmd_ok(run_cmd([@limit, $botan, 'keygen', '--algo=XMSS', '--params=XMSS-SHA2_10_256', "--output=$dir/botan.key"]),
           'Botan: keygen XMSS-SHA2_10_256');
    cmd_ok(run_cmd([@limit, $botan, 'pkcs8', '--pub-out', "$dir/botan.key", "--output=$dir/botan-own.pub"]), 'Botan: its public key');
    spew("$dir/botan.raw", botan_raw_key("$dir/botan-own.pub"));
    cmd_ok(run_cmd([$raw_tool, 'spki', '--scheme', 'xmss', "$dir/botan.raw", "$dir/botan-klms.pub"]),
           "klms-raw spki of Botan's raw key");
    for my $i (0, 1) {
        my $r = run_cmd([@limit, $botan, 'sign', "$dir/botan.key", "$dir/msg"]);
        cmd_ok($r, "Botan: signature $i");
        spew("$dir/botan.$i.sig", decode_base64($r->{out}));
        is(-s "$dir/botan.$i.sig", 2500, 'a raw XMSS-SHA2_10_256 signature');
        ok(klms_verifies("$dir/botan-klms.pub", "$dir/msg", "$dir/botan.$i.sig"), "klms: Botan's signature $i verifies");
    }
    ok(!klms_verifies("$dir/botan-klms.pub", "$dir/msg", flipped("$dir/botan.0.sig")), 'klms: a flipped one is refused');
}

done_testing();
