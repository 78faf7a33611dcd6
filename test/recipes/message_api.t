# OpenSSL 3.4+'s message-signature API with HSS-LMS keys, through klms-msg-stream:
# EVP_SIGNATURE_fetch("HSS-LMS"), EVP_PKEY_sign_message_* streaming, and EVP_PKEY_verify_message_*
# with the signature set first, which hashes the message as it streams. Signatures made either way
# verify the other way and with pkeyutl; an altered message or signature fails with the provider's
# reason; a malformed signature is refused when it is set. Memory: a 64 MiB message verifies
# through the message API within a small constant of a 1 MiB one, while the digest API (all that
# OpenSSL 3.0 has; the signature comes last) holds the whole message.
# Built against OpenSSL before 3.4 the tool has no message API: the recipe says so and checks the
# digest-API path only.
use strict;
use warnings;
use Test::More;
use KlmsTest qw(:DEFAULT :cli);

my $dir = private_dir();
mkdir "$dir/state", 0700 or die;
$ENV{KLMS_STATE_DIR} = "$dir/state";
my $tool = tool('klms-msg-stream');
my $has_api = run_cmd([$tool, 'has-message-api'])->{status} == 0;
my $VERIFY_FAILED = qr/HSS\/LMS signature verification failed/;
sub stream { return run_cmd([$tool, @_]) }
sub rss { my ($r) = @_; return $r->{err} =~ /maxrss_kb=(\d+)/ ? $1 : undef }

if (openssl_at_least(3, 4)) {
    ok($has_api, 'OpenSSL 3.4+: klms-msg-stream has the message API');
} else {
    ok(!$has_api, 'OpenSSL before 3.4: no message API (digest API only)');
}

cmd_ok(hss_genpkey("$dir/k.pem", 'height:5', "state-file:$dir/k.state"), 'key');
cmd_ok(openssl('pkey', '-in', "$dir/k.pem", '-pubout', '-out', "$dir/k.pub"), 'public key');
my $chunk = join('', map { chr(($_ * 7 + 3) & 0xff) } 0 .. 4095);
spew("$dir/small", $chunk x 256);  # 1 MiB
spew("$dir/small.bad", ($chunk x 255) . substr($chunk, 0, 4095) . 'X');

# The digest API (every version)
cmd_ok(stream('sign', 'digest', "$dir/k.pem", "$dir/small", "$dir/d.sig"), 'EVP_DigestSign streaming sign', qr/^signed$/m);
cmd_ok(stream('verify', 'digest', "$dir/k.pub", "$dir/d.sig", "$dir/small"), 'EVP_DigestVerify streaming verify', qr/^verified$/m);
cmd_fails(stream('verify', 'digest', "$dir/k.pub", "$dir/d.sig", "$dir/small.bad"), $VERIFY_FAILED,
          'digest API: altered message fails with the reason', status => 1);
cmd_ok(openssl('pkeyutl', '-verify', '-rawin', '-pubin', '-inkey', "$dir/k.pub", '-in', "$dir/small", '-sigfile', "$dir/d.sig"),
       'pkeyutl verifies it', qr/Signature Verified Successfully/);

# `openssl dgst -sign` of a file over 16 MiB: OpenSSL 3.0 streams it (EVP_DigestSignUpdate); 3.5+
# sign a key whose mandatory digest is none in one shot and read at most 16 MiB (apps/dgst.c),
# so the command fails with "Read error" (pkeyutl -rawin, or the message API, sign any size).
{
    open my $fh, '>:raw', "$dir/17m" or die;
    print $fh $chunk x 256 for 1 .. 17;
    close $fh or die;
    my $r = openssl('dgst', '-sign', "$dir/k.pem", '-out', "$dir/17m.sig", "$dir/17m");
    if (openssl_at_least(3, 5)) {
        cmd_fails($r, qr/Read error in \Q$dir\E\/17m/, 'OpenSSL 3.5+: dgst -sign of 17 MiB fails (16 MiB one-shot limit)', status => 1);
    } else {
        cmd_ok($r, 'OpenSSL 3.0: dgst -sign streams 17 MiB');
    }
    cmd_ok(openssl('pkeyutl', '-sign', '-rawin', '-inkey', "$dir/k.pem", '-in', "$dir/17m", '-out', "$dir/17m.p.sig"),
           'pkeyutl -sign -rawin signs 17 MiB');
    cmd_ok(stream('verify', 'digest', "$dir/k.pub", "$dir/17m.p.sig", "$dir/17m"), '... and it verifies', qr/^verified$/m);
}

SKIP: {
    skip 'OpenSSL before 3.4: no message-signature API', 13 unless $has_api;
    cmd_ok(stream('sign', 'message', "$dir/k.pem", "$dir/small", "$dir/m.sig"), 'EVP_PKEY_sign_message_* streaming sign',
           qr/^signed$/m);
    cmd_ok(stream('verify', 'message', "$dir/k.pub", "$dir/m.sig", "$dir/small"),
           'EVP_PKEY_verify_message_* with the signature first', qr/^verified$/m);
    cmd_ok(stream('verify', 'digest', "$dir/k.pub", "$dir/m.sig", "$dir/small"), '... and through the digest API', qr/^verified$/m);
    cmd_ok(stream('verify', 'message', "$dir/k.pub", "$dir/d.sig", "$dir/small"), 'the digest-API signature through the message API',
           qr/^verified$/m);
    cmd_ok(openssl('pkeyutl', '-verify', '-rawin', '-pubin', '-inkey', "$dir/k.pub", '-in', "$dir/small", '-sigfile', "$dir/m.sig"),
           'pkeyutl verifies the message-API signature', qr/Signature Verified Successfully/);
    isnt(slurp("$dir/m.sig"), slurp("$dir/d.sig"), 'two signatures, two indices');
    cmd_fails(stream('verify', 'message', "$dir/k.pub", "$dir/m.sig", "$dir/small.bad"), $VERIFY_FAILED,
              'message API: altered message fails with the reason', status => 1);
    flip_byte("$dir/m.sig", "$dir/m.badsig", -1);
    cmd_fails(stream('verify', 'message', "$dir/k.pub", "$dir/m.badsig", "$dir/small"), $VERIFY_FAILED,
              'message API: altered signature fails with the reason', status => 1);
    spew("$dir/short.sig", substr(slurp("$dir/m.sig"), 0, 100));
    cmd_fails(stream('verify', 'message', "$dir/k.pub", "$dir/short.sig", "$dir/small"),
              qr/EVP_PKEY_CTX_set_signature failed.*malformed HSS\/LMS signature/s,
              'a truncated signature is refused when it is set, with the reason', status => 1);

    # Memory: 64 MiB against 1 MiB through each API.
    open my $fh, '>:raw', "$dir/big" or die;
    print $fh $chunk x 256 for 1 .. 64;
    close $fh or die;
    cmd_ok(stream('sign', 'message', "$dir/k.pem", "$dir/big", "$dir/big.sig"), 'a 64 MiB message signed by streaming');
    my $small = rss(stream('verify', 'message', "$dir/k.pub", "$dir/m.sig", "$dir/small"));
    my $r = stream('verify', 'message', "$dir/k.pub", "$dir/big.sig", "$dir/big");
    cmd_ok($r, '64 MiB verified through the message API', qr/^verified$/m);
    my $digest = rss(stream('verify', 'digest', "$dir/k.pub", "$dir/big.sig", "$dir/big"));
    diag(sprintf('peak RSS: 1 MiB message %d KiB, 64 MiB message %d KiB (message API), %d KiB (digest API)',
                 $small // -1, rss($r) // -1, $digest // -1));
    ok(defined $small && defined rss($r) && rss($r) - $small < 16 * 1024,
       'message API: 64 MiB needs less than 16 MiB more than 1 MiB (the message is not buffered)');
}

done_testing();
