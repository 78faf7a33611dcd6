# Interoperability: public keys and signatures of other implementations, wrapped here into
# SubjectPublicKeyInfo DER (RFC 9708: SEQUENCE { SEQUENCE { OID 1.2.840.113549.1.9.16.3.17 },
# BIT STRING 00 || raw HSS key }, and the older RFC 8708 form whose BIT STRING holds an OCTET
# STRING), verify with `openssl pkeyutl -verify -rawin -pubin -keyform DER`, and altered messages
# fail: RFC 8554 Appendix F, RFC 9858 Appendix A, botan's hss_lms_verify.vec (and its invalid
# signatures fail cleanly). Keys regenerated from the vectors' SEED and I with genpkey reproduce the
# vectors' public keys and signatures byte for byte.
#
# The raw RFC 8554 formats, for a verifier that speaks only those (such as OpenSSL 3.6's
# verify-only LMS), for an L = 1 key with m = 32 (SHA-256 or any other 32-byte set; the SPKI then
# holds a 60-byte raw key; with m = 24 use 52). This recipe runs exactly these lines:
#
# BEGIN RAW-FORMAT COMMANDS
# # The raw HSS public key (RFC 8554 section 6.1) is the content of the SPKI's BIT STRING:
# openssl pkey -in key.pem -pubout -outform DER | tail -c 60 > hss.pub
# # The LMS public key (section 5.3) is that without its first 4 bytes, u32(L) = 1:
# tail -c +5 hss.pub > lms.pub
# # An HSS signature; the LMS signature is that without its first 4 bytes, u32(Nspk) = 0:
# openssl pkeyutl -sign -rawin -inkey key.pem -in msg.txt -out hss.sig
# tail -c +5 hss.sig > lms.sig
# # Back again: put the 4 bytes in front, and the fixed 20-byte SPKI header before the key:
# { printf '\000\000\000\001'; cat lms.pub; } > hss2.pub
# { printf '\000\000\000\000'; cat lms.sig; } > hss2.sig
# { printf '\060\116\060\015\006\013\052\206\110\206\367\015\001\011\020\003\021\003\075\000'; cat hss2.pub; } > key2.der
# openssl pkeyutl -verify -rawin -pubin -keyform DER -inkey key2.der -in msg.txt -sigfile hss2.sig
# END RAW-FORMAT COMMANDS
use strict;
use warnings;
use Test::More;
use KlmsTest qw(:DEFAULT :cli);

my $dir = private_dir();
mkdir "$dir/state", 0700 or die;
$ENV{KLMS_STATE_DIR} = "$dir/state";
my $data = $ENV{KLMS_TEST_DATA} or die 'KLMS_TEST_DATA not set';
my $VERIFIED = qr/Signature Verified Successfully/;
my $VERIFY_FAILED = qr/HSS\/LMS signature verification failed/;

# ---- The vectors ----
my @vectors;
sub ini_sections {  # "[name]" sections of "key = value" lines
    my ($file) = @_;
    my (@out, $cur);
    for (split /\r?\n/, slurp($file)) {
        if (/^\[(.+)\]/) { push @out, $cur = { name => $1 } }
        elsif ($cur && /^\s*(\w+)\s*=\s*(\S*)\s*$/) { $cur->{$1} = $2 }
    }
    return @out;
}
for my $s (ini_sections("$data/lms/rfc8554_appendixF.txt")) {
    push @vectors, { %$s, name => "RFC 8554 $s->{name}", pub => unhex($s->{public_key}), msg => unhex($s->{message}),
                     sig => unhex($s->{signature}) };
}
for my $s (ini_sections("$data/lms/rfc9858/rfc9858_appendixA.txt")) {
    my ($id) = $s->{name} =~ /^(\S+)/;
    push @vectors, { %$s, name => $id, pub => unhex($s->{public_key}), msg => unhex($s->{message}), sig => unhex($s->{signature}) };
}
{
    my ($comment, $i, %cur) = ('', 0);
    for (split /\r?\n/, slurp("$data/lms/botan/hss_lms_verify.vec")) {
        if (/^#\s*(.*)/) { $comment = $1 }
        elsif (/^(PublicKey|Msg|Signature) = (\S*)/) {
            $cur{$1} = unhex($2);
            if ($1 eq 'Signature') {
                push @vectors, { name => 'botan verify ' . ++$i . " ($comment)", pub => $cur{PublicKey}, msg => $cur{Msg}, sig => $cur{Signature} };
            }
        }
    }
}
is(scalar @vectors, 2 + 4 + 5, 'vectors loaded: RFC 8554 (2), RFC 9858 (4), botan (5)');

# Standard type codes -> names (docs/params.md "Standard sets").
sub lms_name {
    my ($c) = @_;
    my @fam = ([5, 'SHA256', 32], [0x0A, 'SHA256', 24], [0x0F, 'SHAKE', 32], [0x14, 'SHAKE', 24]);
    for my $f (@fam) { return sprintf('LMS_%s_M%d_H%d', $f->[1], $f->[2], 5 * ($c - $f->[0] + 1)) if $c >= $f->[0] && $c < $f->[0] + 5 }
    return undef;
}
sub ots_name {
    my ($c) = @_;
    my @fam = ([1, 'SHA256', 32], [5, 'SHA256', 24], [9, 'SHAKE', 32], [0x0D, 'SHAKE', 24]);
    for my $f (@fam) { return sprintf('LMOTS_%s_N%d_W%d', $f->[1], $f->[2], (1, 2, 4, 8)[$c - $f->[0]]) if $c >= $f->[0] && $c < $f->[0] + 4 }
    return undef;
}

# ---- Each vector through SPKI (RFC 9708 and RFC 8708 forms) ----
my $n = 0;
for my $v (@vectors) {
    subtest $v->{name} => sub {
        my $p = "$dir/v" . ++$n;
        spew("$p.msg", $v->{msg});
        spew("$p.sig", $v->{sig});
        spew("$p.9708.der", hss_spki_der($v->{pub}));
        spew("$p.8708.der", hss_spki_der($v->{pub}, rfc8708 => 1));
        spew("$p.pem", pem_wrap('PUBLIC KEY', hss_spki_der($v->{pub})));
        my $bad = $v->{msg} ne '' ? $v->{msg} : "\0";
        substr($bad, -1, 1) = chr(ord(substr($bad, -1, 1)) ^ 0x01);
        spew("$p.bad", $bad);
        for my $form ('9708', '8708') {
            cmd_ok(openssl('pkeyutl', '-verify', '-rawin', '-pubin', '-keyform', 'DER', '-inkey', "$p.$form.der",
                           '-in', "$p.msg", '-sigfile', "$p.sig"), "RFC $form SPKI: verifies", $VERIFIED);
            cmd_fails(openssl('pkeyutl', '-verify', '-rawin', '-pubin', '-keyform', 'DER', '-inkey', "$p.$form.der",
                              '-in', "$p.bad", '-sigfile', "$p.sig"), $VERIFY_FAILED, "RFC $form SPKI: altered message fails", status => 1);
        }
        cmd_ok(openssl('dgst', '-verify', "$p.pem", '-signature', "$p.sig", "$p.msg"), 'PEM key, dgst -verify', qr/^Verified OK$/m);
        # The RFC 8708 form is read and written back in the RFC 9708 form.
        my $r = openssl('pkey', '-pubin', '-inform', 'DER', '-in', "$p.8708.der", '-pubout', '-outform', 'DER');
        cmd_ok($r, 'pkey reads the RFC 8708 form');
        is(tohex($r->{out}), tohex(hss_spki_der($v->{pub})), '... and writes the RFC 9708 form');
        my ($lc, $oc) = unpack('N N', substr($v->{pub}, 4, 8));
        $r = openssl('pkey', '-pubin', '-inform', 'DER', '-in', "$p.9708.der", '-text_pub', '-noout');
        cmd_ok($r, 'pkey -text_pub', qr/^levels: \Q${\ unpack('N', $v->{pub})}\E$/m);
        like($r->{out}, qr/^level 1: \Q${\ lms_name($lc)} \/ ${\ ots_name($oc)}\E$/m, 'text shows the top level\'s sets by name');
    };
}

# ---- botan's invalid signatures fail cleanly ----
{
    my ($comment, $i, %cur) = ('', 0);
    for (split /\r?\n/, slurp("$data/lms/botan/hss_lms_invalid.vec")) {
        if (/^#\s*(.*)/) { $comment = $1 }
        elsif (/^(PublicKey|Msg|InvalidSignature) = ?(\S*)/) {
            $cur{$1} = unhex($2);
            next unless $1 eq 'InvalidSignature';
            my $p = "$dir/invalid" . ++$i;
            spew("$p.der", hss_spki_der($cur{PublicKey}));
            spew("$p.msg", $cur{Msg});
            spew("$p.sig", $cur{InvalidSignature});
            cmd_fails(openssl('pkeyutl', '-verify', '-rawin', '-pubin', '-keyform', 'DER', '-inkey', "$p.der", '-in', "$p.msg",
                              '-sigfile', "$p.sig"),
                      qr/HSS\/LMS signature verification failed|malformed HSS\/LMS signature|unknown HSS\/LMS parameter set/,
                      "botan invalid $i ($comment): refused", status => 1);
        }
    }
    is($i, 4, 'four invalid signatures tried');
}

# ---- Regenerated from SEED and I: the same public keys and signatures ----
my %seeded = (env => { KLMS_ALLOW_SEEDED_KEYS => 1 });
for my $v (grep { $_->{SEED} && $_->{q} && $_->{name} =~ /A\.[123]$/ } @vectors) {
    subtest "$v->{name} regenerated with genpkey" => sub {
        my ($lc, $oc) = unpack('N N', substr($v->{pub}, 4, 8));
        my $key = "$dir/$v->{name}.pem";
        cmd_ok(hss_genpkey($key, 'lms:' . lms_name($lc), 'ots:' . ots_name($oc), "hexseed:$v->{SEED}", "hexidentifier:$v->{I}",
                           "state-file:$dir/$v->{name}.state"), 'genpkey with hexseed and hexidentifier');
        my $r = openssl('pkey', '-in', $key, '-pubout', '-outform', 'DER');
        is(tohex($r->{out}), tohex(hss_spki_der($v->{pub})), 'the public key of the vector');
        spew("$dir/rg.msg", $v->{msg});
        cmd_ok(openssl('pkeyutl', '-sign', '-rawin', '-inkey', $key, '-in', "$dir/rg.msg", '-out', "$dir/rg0.sig",
                       '-pkeyopt', "reserve:$v->{q}", \%seeded), "skip to index $v->{q} (reserve:$v->{q})");
        cmd_ok(openssl('pkeyutl', '-sign', '-rawin', '-inkey', $key, '-in', "$dir/rg.msg", '-out', "$dir/rg.sig", \%seeded),
               "sign at index $v->{q}");
        is(tohex(slurp("$dir/rg.sig")), tohex($v->{sig}), 'the signature of the vector, byte for byte');
    };
}
{
    my ($tc2) = grep { $_->{name} eq 'RFC 8554 TestCase2' } @vectors;
    subtest 'RFC 8554 Test Case 2 (L = 2) regenerated with genpkey' => sub {
        my $key = "$dir/tc2.pem";
        cmd_ok(hss_genpkey($key, 'lms:LMS_SHA256_M32_H10,LMS_SHA256_M32_H5', 'ots:LMOTS_SHA256_N32_W4,LMOTS_SHA256_N32_W8',
                           "hexseed:$tc2->{top_seed}", "hexidentifier:$tc2->{top_I}", "state-file:$dir/tc2.state"),
               'genpkey: top H10/W4, second level H5/W8, the RFC\'s top SEED and I');
        is(tohex(substr(openssl('pkey', '-in', $key, '-pubout', '-outform', 'DER')->{out}, 20)), tohex($tc2->{pub}), 'the public key of the RFC');
        spew("$dir/tc2.msg", $tc2->{msg});
        # The message signature is at leaf 4 of the second tree below top leaf 3: index 3 * 32 + 4.
        cmd_ok(openssl('pkeyutl', '-sign', '-rawin', '-inkey', $key, '-in', "$dir/tc2.msg", '-out', "$dir/tc2-0.sig",
                       '-pkeyopt', 'reserve:100', \%seeded), 'skip to index 100');
        cmd_ok(openssl('pkeyutl', '-sign', '-rawin', '-inkey', $key, '-in', "$dir/tc2.msg", '-out', "$dir/tc2.sig", \%seeded), 'sign at index 100');
        my $sig = slurp("$dir/tc2.sig");
        is(length $sig, length $tc2->{sig}, 'signature length of the RFC');
        is(tohex($sig), tohex($tc2->{sig}), 'the signature of the RFC, byte for byte (second level derived at q = 3)');
    };
}

# ---- The raw RFC 8554 formats, with the commands of the comment block above ----
{
    my ($script) = slurp(__FILE__) =~ /^# BEGIN RAW-FORMAT COMMANDS\n(.*?)^# END RAW-FORMAT COMMANDS\n/ms;
    $script =~ s/^# ?//mg;
    my $work = "$dir/raw";
    mkdir $work, 0700 or die;
    mkdir "$work/bin", 0700 or die;
    symlink($ENV{OPENSSL_BIN} // '/usr/bin/openssl', "$work/bin/openssl") or die;
    cmd_ok(hss_genpkey("$work/key.pem", 'height:5', "state-file:$work/key.state"), 'an L = 1 LMS_SHA256_M32_H5 key');
    spew("$work/msg.txt", "raw formats\n");
    my $r = run_cmd(['/bin/sh', '-e', '-c', "cd '$work' && $script"], env => { PATH => "$work/bin:$ENV{PATH}" });
    cmd_ok($r, 'the commands of the comment block run', $VERIFIED);
    my %f = map { ($_ => -e "$work/$_" ? slurp("$work/$_") : '') } qw(hss.pub lms.pub hss.sig lms.sig hss2.pub hss2.sig key2.der);
    my $spki = openssl('pkey', '-in', "$work/key.pem", '-pubout', '-outform', 'DER')->{out};
    my ($seq) = der_items($spki);
    my (undef, $bits) = der_items($seq->{content});
    is(tohex($f{'hss.pub'}), tohex(substr($bits->{content}, 1)), 'hss.pub is the BIT STRING content of the SPKI');
    is(length $f{'hss.pub'}, 60, '60 bytes');
    is(tohex($f{'hss.pub'}), tohex(pack('N', 1) . $f{'lms.pub'}), 'raw HSS key = u32(1) || LMS key');
    is(tohex(substr($f{'lms.pub'}, 0, 8)), '0000000500000003', 'LMS key: LMS_SHA256_M32_H5, LMOTS_SHA256_N32_W4, then I and T');
    is(substr($f{'hss.sig'}, 0, 4), "\0\0\0\0", 'HSS signature starts with u32(Nspk) = 0');
    is(tohex($f{'hss.sig'}), tohex("\0\0\0\0" . $f{'lms.sig'}), 'HSS signature = u32(0) || LMS signature');
    is(length $f{'lms.sig'}, 4 + (4 + 32 + 67 * 32) + 4 + 5 * 32, 'LMS signature length of RFC 8554 section 5.4');
    is(unpack('N', substr($f{'lms.sig'}, 0, 4)), 0, 'LMS signature: q = 0');
    is(unpack('N', substr($f{'lms.sig'}, 4, 4)), 3, 'then the LM-OTS type');
    is(unpack('N', substr($f{'lms.sig'}, 4 + 4 + 32 + 67 * 32, 4)), 5, 'the LMS type after the LM-OTS signature');
    is($f{'hss2.pub'}, $f{'hss.pub'}, 'the round trip gives the HSS key back');
    is($f{'hss2.sig'}, $f{'hss.sig'}, '... and the HSS signature');
    is(tohex($f{'key2.der'}), tohex($spki), 'and the 20-byte header makes it the SPKI again');
    cmd_ok(openssl('pkeyutl', '-verify', '-rawin', '-pubin', '-keyform', 'DER', '-inkey', "$work/key2.der", '-in', "$work/msg.txt",
                   '-sigfile', "$work/hss2.sig"), 'the provider verifies the re-assembled key and signature', $VERIFIED);
    # The stripped forms alone are not what the provider reads.
    cmd_fails(openssl('pkeyutl', '-verify', '-rawin', '-pubin', '-keyform', 'DER', '-inkey', "$work/key2.der", '-in', "$work/msg.txt",
                      '-sigfile', "$work/lms.sig"), qr/unknown LM-OTS parameter set|malformed HSS\/LMS signature|verification failed/,
              'a bare LMS signature is not an HSS signature', status => 1);
}

done_testing();
