# The known-answer self-tests fail closed (docs/install.md "Load cost and self-tests", provider/self_test.cpp):
# KLMS_SELF_TEST_CORRUPT=<part> makes one part of one known answer wrong, as a damaged library would.
# Each part must then refuse what it guards with "self-test failed: <what>": verification, signing
# (without spending an index: the state file is unchanged and no signature is written), key
# generation (no key file), and the digests of its group. An unknown part changes nothing.
use strict;
use warnings;
use Test::More;
use KlmsTest qw(:DEFAULT :cli);

my $dir = private_dir();
my $msg = "$dir/msg";
spew($msg, "known answers first\n");

cmd_ok(hss_genpkey("$dir/k.pem", 'height:5', 'winternitz:4', "state-file:$dir/k.state"), 'an H5/W4 key');
cmd_ok(openssl('pkey', '-in', "$dir/k.pem", '-pubout', '-out', "$dir/k.pub"), 'its public key');
cmd_ok(openssl('pkeyutl', '-sign', '-rawin', '-inkey', "$dir/k.pem", '-in', $msg, '-out', "$dir/good.sig"),
       'signs without failure injection');

# part => the failure the provider names. The LMS test (first key generation, signature or
# verification) checks every digest family, then RFC 8554 Test Case 2: both of its levels must
# verify (hss-top: the W4 level, hss-bottom: the W8 level), and its top level must reject an altered key.
my %lms_parts = (
    'lsh256'     => 'LSH-256-256 known answer',
    'tdm-cham'   => 'TDM-CHAM known answer',
    'tdm-lea'    => 'TDM-LEA known answer',
    'tdm-aria'   => 'TDM-ARIA known answer',
    'hss-top'    => 'HSS verification known answer',
    'hss-bottom' => 'HSS verification known answer',
    'reject'     => 'LMS verification accepted an altered message',
);
for my $part (sort keys %lms_parts) {
    my $env = { env => { KLMS_SELF_TEST_CORRUPT => $part } };
    my $re = qr/self-test failed:.*\Q$lms_parts{$part}\E/;
    cmd_fails(openssl('pkeyutl', '-verify', '-rawin', '-pubin', '-inkey', "$dir/k.pub", '-in', $msg,
                      '-sigfile', "$dir/good.sig", $env), $re, "$part: verification refused");
    my $state = slurp("$dir/k.state");
    unlink "$dir/bad.sig";
    cmd_fails(openssl('pkeyutl', '-sign', '-rawin', '-inkey', "$dir/k.pem", '-in', $msg, '-out', "$dir/bad.sig", $env),
              $re, "$part: signing refused");
    ok(slurp("$dir/k.state") eq $state, "$part: no index spent (state file unchanged)");
    ok(!-s "$dir/bad.sig", "$part: no signature written");
    unlink "$dir/new.pem";
    cmd_fails(hss_genpkey("$dir/new.pem", 'height:5', "state-file:$dir/new-$part.state", $env), $re,
              "$part: key generation refused");
    ok(!-s "$dir/new.pem", "$part: no key written");
}

# The digest groups: each digest checks its own known answer on its first context.
my %digest_parts = ('lsh256' => ['LSH-256-256', 'LSH-256-256 known answer'],
                    'tdm-cham' => ['TDM-CHAM', 'TDM-CHAM known answer'],
                    'tdm-lea' => ['TDM-LEA', 'TDM-LEA known answer'],
                    'tdm-aria' => ['TDM-ARIA', 'TDM-ARIA known answer']);
for my $part (sort keys %digest_parts) {
    my ($digest, $what) = @{ $digest_parts{$part} };
    cmd_fails(openssl('dgst', "-$digest", $msg, { env => { KLMS_SELF_TEST_CORRUPT => $part } }),
              qr/self-test failed:.*\Q$what\E/, "$part: dgst -$digest refused");
    cmd_ok(openssl('dgst', "-$digest", $msg), "$digest without failure injection");
}

# Nothing else is affected: an unknown part, and SHA-256 without klms's digests.
my $env = { env => { KLMS_SELF_TEST_CORRUPT => 'no-such-part' } };
cmd_ok(openssl('pkeyutl', '-verify', '-rawin', '-pubin', '-inkey', "$dir/k.pub", '-in', $msg, '-sigfile', "$dir/good.sig", $env),
       'an unknown part: verification still succeeds', qr/Signature Verified Successfully/);
cmd_ok(openssl('dgst', '-sha256', $msg, { env => { KLMS_SELF_TEST_CORRUPT => 'hss-top' } }),
       "OpenSSL's own SHA-256 is not klms's to refuse");

done_testing();
