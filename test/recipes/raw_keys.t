# klms-raw (klms-raw(1)): raw RFC 8554 public keys to and from the SubjectPublicKeyInfo openssl
# reads, and a signature's index at every level. Judged by things outside the tool: the stock
# openssl (pkey -pubout, pkeyutl -verify), the test suite's own DER builder (KlmsTest::hss_spki_der),
# the independent signature parser (KlmsTest::state_sig_q), and RFC 8554 Appendix F's public keys,
# signatures and indices (test/data/lms/rfc8554_appendixF.txt).
# Cost: one H5/H5 key, about 25 short processes: ~2 s.
use strict;
use warnings;
use Test::More;
use KlmsTest qw(:DEFAULT :cli);

my $h5h5 = state_shapes('LMS_SHA256_M32_H5,LMS_SHA256_M32_H5', 'LMOTS_SHA256_N32_W8');
sub levels_q { my (undef, $per) = state_sig_q($_[0], $h5h5); return join ' ', @{ $per // [] } }

my $dir = private_dir();
my $raw_tool = tool('klms-raw');
sub raw_cmd { return run_cmd_st([$raw_tool, @_]) }

sub ini_sections {
    my ($file) = @_;
    my (@out, $cur);
    for (split /\r?\n/, slurp($file)) {
        if (/^\[(.+)\]/) { push @out, $cur = { name => $1 } }
        elsif ($cur && /^\s*(\w+)\s*=\s*(\S*)\s*$/) { $cur->{$1} = $2 }
    }
    return @out;
}

# ---- RFC 8554 Appendix F: raw keys from the RFC verify the RFC's signatures through klms-raw's SPKI ----
for my $v (ini_sections("$ENV{KLMS_TEST_DATA}/lms/rfc8554_appendixF.txt")) {
    my $name = "RFC 8554 $v->{name}";
    my ($pub, $msg, $sig) = map { "$dir/$v->{name}.$_" } qw(pub msg sig);
    spew($pub, unhex($v->{public_key}));
    spew($msg, unhex($v->{message}));
    spew($sig, unhex($v->{signature}));
    my $der = raw_cmd('spki', '--der', $pub, "$pub.der");
    is($der->{status}, 0, "$name: klms-raw spki --der") or diag($der->{err});
    is(slurp("$pub.der"), hss_spki_der(unhex($v->{public_key})), "$name: the DER is RFC 9708's SubjectPublicKeyInfo");
    my $pem = raw_cmd('spki', $pub, "$pub.pem");
    is($pem->{status}, 0, "$name: klms-raw spki (PEM)");
    my $ver = openssl('pkeyutl', '-verify', '-rawin', '-pubin', '-inkey', "$pub.pem", '-in', $msg, '-sigfile', $sig);
    like($ver->{out}, qr/Signature Verified Successfully/, "$name: openssl verifies the RFC's signature with it");
    my $back = raw_cmd('raw', "$pub.pem", "$pub.raw");
    is($back->{status}, 0, "$name: klms-raw raw") or diag($back->{err});
    is(slurp("$pub.raw"), unhex($v->{public_key}), "$name: and back to the same raw key");
    my $ix = raw_cmd('sig-index', $sig);
    is($ix->{status}, 0, "$name: sig-index") or diag($ix->{err});
    like($ix->{out}, qr/^levels: 2$/m, "$name: two levels");
    my @q = $ix->{out} =~ /^level \d: q = (\d+) /mg;
    is("@q", levels_q(unhex($v->{signature})), "$name: q at each level agrees with the independent parser")
        if $v->{name} eq 'TestCase1';
    if ($v->{name} eq 'TestCase2') {
        # The vector file's own note (from the RFC): the top tree signed with q = 3, the second tree q = 4.
        is("@q", '3 4', "$name: q = 3 at the top level, 4 below, as the RFC says");
        like($ix->{out}, qr/^index: 100$/m, "$name: index 3 * 2^5 + 4 = 100");
        like($ix->{out}, qr/^level 0: q = 3 \(LMS_SHA256_M32_H10 \/ LMOTS_SHA256_N32_W4\)$/m, "$name: the top level's sets");
    }
}

# ---- a key of our own: openssl's SPKI and klms-raw agree both ways; the index of each signature ----
{
    my $key = "$dir/k.pem";
    my $r = openssl('genpkey', '-algorithm', 'HSS-LMS', '-pkeyopt', 'lms:LMS_SHA256_M32_H5,LMS_SHA256_M32_H5',
                    '-pkeyopt', 'ots:LMOTS_SHA256_N32_W8', '-pkeyopt', "state-file:$dir/k.state", '-out', $key);
    is($r->{status}, 0, 'genpkey (two levels, H5/H5)') or diag($r->{err});
    openssl('pkey', '-in', $key, '-pubout', '-out', "$dir/pub.pem");
    openssl('pkey', '-in', $key, '-pubout', '-outform', 'DER', '-out', "$dir/pub.der");
    is(raw_cmd('raw', "$dir/pub.der", "$dir/pub.raw")->{status}, 0, "klms-raw raw of openssl's DER");
    is(raw_cmd('spki', "$dir/pub.raw", "$dir/again.pem")->{status}, 0, 'klms-raw spki of that');
    is(slurp("$dir/again.pem"), slurp("$dir/pub.pem"), "PEM: byte for byte what openssl pkey -pubout writes");
    raw_cmd('spki', '--der', "$dir/pub.raw", "$dir/again.der");
    is(slurp("$dir/again.der"), slurp("$dir/pub.der"), 'DER: byte for byte too');
    my $stdin = run_cmd_st(['sh', '-c', "\"$raw_tool\" raw - < \"$dir/pub.pem\""]);
    is($stdin->{out}, slurp("$dir/pub.raw"), 'raw reads standard input and writes standard output');

    my @seen;
    for my $i (1 .. 3) {
        spew("$dir/m$i", "message $i\n");
        my $s = openssl('pkeyutl', '-sign', '-rawin', '-inkey', $key, '-in', "$dir/m$i", '-out', "$dir/m$i.sig");
        is($s->{status}, 0, "signature $i") or diag($s->{err});
        my $ix = raw_cmd('sig-index', "$dir/m$i.sig");
        my @q = $ix->{out} =~ /^level \d: q = (\d+) /mg;
        is("@q", levels_q(slurp("$dir/m$i.sig")), "signature $i: q per level agrees with the independent parser (@q)");
        my ($index) = $ix->{out} =~ /^index: (\d+)$/m;
        push @seen, $index;
    }
    is("@seen", '0 1 2', 'the indices of three signatures from a new key: 0 1 2');
}

# ---- refusals ----
{
    my $bad = "$dir/short.pub";
    spew($bad, substr(unhex('000000020000000600000003d08fabd4a2091ff0a8cb4ed834e7453432a58885'), 0, 30));
    my $r = raw_cmd('spki', $bad, "$dir/x.pem");
    is($r->{status}, 1, 'a truncated raw key is refused');
    like($r->{err}, qr/not a raw hss public key/, '... saying so');
    ok(!-s "$dir/x.pem", '... and nothing is written');
    my $rsa = openssl('genpkey', '-algorithm', 'RSA', '-pkeyopt', 'rsa_keygen_bits:1024', '-out', "$dir/rsa.pem");
    openssl('pkey', '-in', "$dir/rsa.pem", '-pubout', '-out', "$dir/rsa.pub.pem");
    $r = raw_cmd('raw', "$dir/rsa.pub.pem");
    is($r->{status}, 1, "an RSA key's SubjectPublicKeyInfo is refused");
    like($r->{err}, qr/1\.2\.840\.113549\.1\.1\.1 is not one klms-raw knows/, '... naming its algorithm');
    spew("$dir/params.der", hss_spki_der(unhex(ini_field('TestCase1', 'public_key')), params => "\x05\x00"));
    $r = raw_cmd('raw', "$dir/params.der");
    is($r->{status}, 1, 'an AlgorithmIdentifier with parameters is refused (RFC 9708: absent)');
    spew("$dir/junk.sig", "\x00\x00\x00\x00" . ("\x01" x 100));
    $r = raw_cmd('sig-index', "$dir/junk.sig");
    is($r->{status}, 1, 'a malformed signature is refused');
    is(raw_cmd('sig-index', '--scheme', 'nope', "$dir/junk.sig")->{status}, 2, 'an unknown scheme is a usage error');
    like(raw_cmd('--help')->{err}, qr/schemes: hss/, '--help lists the schemes of the table');
}

sub ini_field {
    my ($section, $field) = @_;
    my ($s) = grep { $_->{name} eq $section } ini_sections("$ENV{KLMS_TEST_DATA}/lms/rfc8554_appendixF.txt");
    return $s->{$field};
}

done_testing();
