# The names a firmware signer types and reads (docs/firmware.md "Names to type"):
# - `-algorithm LMS` is not klms's name (OpenSSL 3.6+ has a verify-only LMS of its own under it):
#   without OpenSSL's LMS (3.0, 3.5, builds without it) genpkey fails ("Error initializing LMS
#   context", "unsupported") and writes no key; HSS-LMS, HSS and id-alg-hss-lms-hashsig generate.
#   With OpenSSL's LMS loaded (3.6+ enable-lms) what `-algorithm LMS` does depends on the version and
#   the property query (docs/openssl-versions.md "Next to OpenSSL's own LMS"): not checked here, said so.
# - the key id: `openssl pkey -text` (private and public key) prints the same `key id` as
#   `klms-state show` of the key's state file, and it is SHA-256 of the raw public key (docs/state.md
#   §16), computed here from the SubjectPublicKeyInfo.
use strict;
use warnings;
use Test::More;
use KlmsTest qw(:DEFAULT :cli);
use Digest::SHA qw(sha256_hex);

my $dir = private_dir();
mkdir "$dir/state", 0700 or die;
$ENV{KLMS_STATE_DIR} = "$dir/state";
my $klms_state = tool('klms-state');

# ---- -algorithm LMS and the names to type instead ----
if (default_has_lms()) {
    note('OpenSSL ' . join('.', @{ openssl_version() }) . " has its own LMS in the default provider: what `genpkey -algorithm LMS` "
         . 'does there depends on the version and the property query (docs/firmware.md); not checked');
} else {
    my $r = openssl('genpkey', '-algorithm', 'LMS', '-out', "$dir/lms.key");
    cmd_fails($r, qr/Error initializing LMS context/, 'genpkey -algorithm LMS fails: "Error initializing LMS context"');
    like($r->{err}, qr/unsupported/, '... with "unsupported" (no provider has an algorithm named LMS)');
    ok(!-s "$dir/lms.key", '... and writes no key');
}
for my $name (qw(HSS-LMS HSS id-alg-hss-lms-hashsig)) {
    my $r = openssl('genpkey', '-algorithm', $name, '-pkeyopt', 'height:5', '-pkeyopt', "state-file:$dir/$name.state",
                    '-out', "$dir/$name.key");
    cmd_ok($r, "genpkey -algorithm $name generates an HSS/LMS key");
    like(openssl('pkey', '-in', "$dir/$name.key", '-text', '-noout')->{out}, qr/^HSS\/LMS Private-Key:/, '... pkey -text reads it');
}

# ---- The key id in pkey -text and klms-state show ----
for my $k ({ name => 'l1', opts => ['lms:LMS_SHA256_M24_H5', 'ots:LMOTS_SHA256_N24_W4'] },
           { name => 'l2', opts => ['lms:LMS_SHA256_M32_H5,LMS_SHA256_M32_H5'] }) {
    my ($key, $state) = ("$dir/$k->{name}.key", "$dir/$k->{name}.state");
    cmd_ok(hss_genpkey($key, @{ $k->{opts} }, "state-file:$state"), "$k->{name}: genpkey");
    my $spki = openssl('pkey', '-in', $key, '-pubout', '-outform', 'DER')->{out};
    my ($outer) = der_items($spki);
    my (undef, $bits) = der_items($outer->{content});
    my $want = sha256_hex(substr($bits->{content}, 1));  # the raw HSS public key after the unused-bits byte

    my $priv = openssl('pkey', '-in', $key, '-text', '-noout');
    cmd_ok($priv, "$k->{name}: pkey -text");
    my ($text_id) = $priv->{out} =~ /^key id: ([0-9a-f]+)$/m;
    is($text_id, $want, "$k->{name}: pkey -text prints key id = SHA-256 of the raw public key");
    cmd_ok(openssl('pkey', '-in', $key, '-pubout', '-out', "$dir/$k->{name}.pub"), "$k->{name}: pkey -pubout");
    my ($pub_id) = openssl('pkey', '-pubin', '-in', "$dir/$k->{name}.pub", '-text', '-noout')->{out} =~ /^key id: ([0-9a-f]+)$/m;
    is($pub_id, $want, "$k->{name}: ... so does pkey -pubin -text of the public key");
    my $show = run_cmd([$klms_state, 'show', $state]);
    cmd_ok($show, "$k->{name}: klms-state show");
    my ($state_id) = $show->{out} =~ /^key id:\s+([0-9a-f]+)$/m;
    is($state_id, $want, "$k->{name}: klms-state show prints the same key id");
}
# Two keys: two ids (the id tells the files apart).
{
    my @ids = map { (openssl('pkey', '-in', "$dir/$_.key", '-text', '-noout')->{out} =~ /^key id: (\w+)$/m)[0] } qw(l1 l2);
    isnt($ids[0], $ids[1], 'two keys have different key ids');
}

done_testing();
