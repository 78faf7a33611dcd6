# X.509 with HSS/LMS keys through the real openssl binary (RFC 9802; docs/design.md "Provider surface"):
# self-signed roots (`req -new -x509`) with a SHA-256 and a K-LMS key, CSRs (`req -new`,
# `req -verify`), end-entity certificates issued with `x509 -req -CA -CAkey` for an EC and an
# HSS/LMS subject key, `verify -CAfile`, tampering, `x509 -text`, and the exact DER of the signature
# algorithm: OID 1.2.840.113549.1.9.16.3.17 with parameters absent.
use strict;
use warnings;
use Test::More;
use KlmsTest qw(:DEFAULT :cli);

my $dir = private_dir();
mkdir "$dir/state", 0700 or die;
$ENV{KLMS_STATE_DIR} = "$dir/state";
my $ALG_ID = unhex('300d060b2a864886f70d0109100311');  # SEQUENCE { OID id-alg-hss-lms-hashsig }, no parameters
my %no_provider = (env => { OPENSSL_CONF => '/dev/null', OPENSSL_MODULES => undef });
my $HSS_NAME = hss_text_name();  # HSS-LMS up to 3.6, id-alg-hss-lms-hashsig from 4.0 (KlmsTest)

sub field { my ($text, $name) = @_; return $text =~ /^\Q$name\E: (.*)$/m ? $1 : undef }
sub next_index { return field(openssl('pkey', '-in', $_[0], '-text', '-noout')->{out}, 'next index') }
sub cert_der { return pem_body(slurp($_[0])) }

# Certificate ::= SEQUENCE { tbsCertificate, signatureAlgorithm, signatureValue }: checks both
# algorithm identifiers byte for byte and the signature's length.
sub check_structure {
    my ($crt, $sig_len, $what) = @_;
    subtest "$what: DER structure" => sub {
        my ($cert) = der_items(cert_der($crt));
        my ($tbs, $alg, $value) = der_items($cert->{content});
        is(tohex($alg->{raw}), tohex($ALG_ID), 'signatureAlgorithm is exactly { 1.2.840.113549.1.9.16.3.17 }, parameters absent');
        my @tbs = der_items($tbs->{content});
        my ($inner) = grep { $_->{tag} == 0x30 } @tbs;  # version [0], serial, then signature
        is(tohex($inner->{raw}), tohex($ALG_ID), 'tbsCertificate.signature is the same');
        is($value->{tag}, 0x03, 'signatureValue is a BIT STRING');
        is(length($value->{content}), 1 + $sig_len, "holding 00 || the $sig_len-byte HSS signature");
    };
    # asn1parse without the provider: the numeric OID, and the BIT STRING right after it (no NULL).
    my $r = openssl('asn1parse', '-in', $crt, \%no_provider);
    cmd_ok($r, "$what: asn1parse");
    my $oid = hss_asn1parse_name();
    like($r->{out}, qr/d=1  hl=2 l=  13 cons: SEQUENCE\s*\n.*d=2  hl=2 l=  11 prim: OBJECT\s+:\Q$oid\E\s*\n.*d=1  hl=\d l=\s*\d+ prim: BIT STRING/,
         "$what: asn1parse shows OID 1.2.840.113549.1.9.16.3.17 with no parameters");
}

# HSS signature bytes for one level: 4 + 4 + (4 + n + p*n) + 4 + h*m.
sub l1_sig_len { my ($n, $p, $h) = @_; return 4 + 4 + (4 + $n + $p * $n) + 4 + $h * $n }

my @roots = (
    { name => 'root-sha256', opts => ['height:5'], sig_len => l1_sig_len(32, 67, 5), level => 'LMS_SHA256_M32_H5 / LMOTS_SHA256_N32_W4' },
    { name => 'root-tdmlea', opts => ['hash:TDMLEA', 'height:5', 'winternitz:8'], sig_len => l1_sig_len(32, 34, 5),
      level => 'LMS_TDMLEA_M32_H5 / LMOTS_TDMLEA_N32_W8' },
);
for my $root (@roots) {
    my ($key, $crt) = ("$dir/$root->{name}.key", "$dir/$root->{name}.crt");
    $root->{key} = $key;
    $root->{crt} = $crt;
    cmd_ok(hss_genpkey($key, @{ $root->{opts} }, "state-file:$dir/$root->{name}.state"), "$root->{name}: genpkey");
    my $r = openssl('req', '-new', '-x509', '-key', $key, '-subj', "/CN=klms $root->{name}", '-days', 30,
                    '-addext', 'basicConstraints=critical,CA:TRUE', '-addext', 'keyUsage=critical,keyCertSign,cRLSign', '-out', $crt);
    cmd_ok($r, "$root->{name}: req -new -x509 (self-signed root)");
    is(next_index($key), 1, "$root->{name}: the root's self-signature used one index");
    $r = openssl('x509', '-in', $crt, '-text', '-noout');
    cmd_ok($r, "$root->{name}: x509 -text");
    like($r->{out}, qr/Signature Algorithm: \Q$HSS_NAME\E\n/, "$root->{name}: x509 -text shows Signature Algorithm: $HSS_NAME");
    like($r->{out}, qr/Public Key Algorithm: \Q$HSS_NAME\E\n/, "$root->{name}: ... and Public Key Algorithm: $HSS_NAME");
    like($r->{out}, qr/HSS\/LMS Public-Key:.*level 1: \Q$root->{level}\E/s, "$root->{name}: ... and the parameter sets");
    like($r->{out}, qr/CA:TRUE/, "$root->{name}: a CA certificate");
    check_structure($crt, $root->{sig_len}, $root->{name});
    cmd_ok(openssl('verify', '-CAfile', $crt, $crt), "$root->{name}: verify -CAfile root root", qr/^\Q$crt\E: OK$/m);
    $r = openssl('x509', '-in', $crt, '-noout', '-pubkey');
    is($r->{out}, openssl('pkey', '-in', $key, '-pubout')->{out}, "$root->{name}: the certificate's public key is the key's");
}
my ($root, $kroot) = @roots;

# ---- CSR with an HSS/LMS key; req -verify ----
my $ee_key = "$dir/ee-hss.key";
cmd_ok(hss_genpkey($ee_key, 'hash:SHAKE', 'height:5,5', "state-file:$dir/ee-hss.state"), 'end-entity HSS key (SHAKE, L = 2)');
{
    my $r = openssl('req', '-new', '-key', $ee_key, '-subj', '/CN=klms end entity', '-out', "$dir/ee-hss.csr");
    cmd_ok($r, 'req -new with an HSS/LMS key');
    $r = openssl('req', '-verify', '-in', "$dir/ee-hss.csr", '-noout');
    cmd_ok($r, 'req -verify');
    like($r->{err} . $r->{out}, qr/self-signature verify OK/, 'req -verify: self-signature verify OK');
    $r = openssl('req', '-in', "$dir/ee-hss.csr", '-text', '-noout');
    cmd_ok($r, 'req -text', qr/Signature Algorithm: \Q$HSS_NAME\E\n/);

    my $der = pem_body(slurp("$dir/ee-hss.csr"));
    my $i = index($der, 'end entity');
    substr($der, $i, 1) = 'E';
    spew("$dir/ee-bad.csr", pem_wrap('CERTIFICATE REQUEST', $der));
    $r = openssl('req', '-verify', '-in', "$dir/ee-bad.csr", '-noout');
    # `req -verify` of a bad self-signature: OpenSSL 3.0 reports it but still exits 0; 3.5+ exit 1
    # (apps/req.c; 3.1 to 3.4 not tested, taken as 3.0).
    like($r->{err}, qr/self-signature verify failure/, 'tampered CSR: req -verify reports verify failure');
    ok(!$r->{signal} && !defined sanitizer_report($r), '... cleanly');
    if (openssl_at_least(3, 5)) {
        is($r->{status}, 1, '... and OpenSSL 3.5+ req exits 1');
    } else {
        is($r->{status}, 0, '... (OpenSSL 3.0 req exits 0 even then)');
    }
    cmd_fails(openssl('x509', '-req', '-in', "$dir/ee-bad.csr", '-CA', $root->{crt}, '-CAkey', $root->{key}, '-set_serial', 99,
                      '-out', "$dir/never.crt"),
              qr/self-signature did not match|signature verification failed/, 'x509 -req refuses the tampered CSR');
    ok(!-s "$dir/never.crt", 'no certificate issued from it');
}

# ---- Issuing end-entity certificates with x509 -req -CA -CAkey ----
spew("$dir/ee.ext", "basicConstraints=critical,CA:FALSE\nkeyUsage=critical,digitalSignature\n");
sub issue {
    my ($csr, $ca, $out, $serial, @extra) = @_;
    return openssl('x509', '-req', '-in', $csr, '-CA', $ca->{crt}, '-CAkey', $ca->{key}, '-set_serial', $serial, '-days', 10,
                   '-extfile', "$dir/ee.ext", '-out', $out, @extra);
}
{
    # An EC subject key under the SHA-256 HSS root.
    cmd_ok(openssl('genpkey', '-algorithm', 'EC', '-pkeyopt', 'ec_paramgen_curve:P-256', '-out', "$dir/ee-ec.key"), 'EC subject key');
    cmd_ok(openssl('req', '-new', '-key', "$dir/ee-ec.key", '-subj', '/CN=klms EC end entity', '-out', "$dir/ee-ec.csr"), 'EC CSR');
    my $before = next_index($root->{key});
    cmd_ok(issue("$dir/ee-ec.csr", $root, "$dir/ee-ec.crt", 2), 'x509 -req -CA (HSS root) issues the EC certificate');
    is(next_index($root->{key}), $before + 1, 'issuing used one index of the CA key');
    my $r = openssl('x509', '-in', "$dir/ee-ec.crt", '-text', '-noout');
    like($r->{out}, qr/Signature Algorithm: \Q$HSS_NAME\E\n.*Public Key Algorithm: id-ecPublicKey/s, 'EC certificate signed with HSS-LMS');
    check_structure("$dir/ee-ec.crt", $root->{sig_len}, 'EC leaf');
    cmd_ok(openssl('verify', '-CAfile', $root->{crt}, "$dir/ee-ec.crt"), 'verify -CAfile root EC leaf', qr/: OK$/m);

    # The HSS/LMS subject key (SHAKE, L = 2) under both roots.
    cmd_ok(issue("$dir/ee-hss.csr", $root, "$dir/ee-hss.crt", 3), 'x509 -req issues the HSS/LMS certificate (SHA-256 root)');
    cmd_ok(openssl('verify', '-CAfile', $root->{crt}, "$dir/ee-hss.crt"), 'verify -CAfile root HSS leaf', qr/: OK$/m);
    $r = openssl('x509', '-in', "$dir/ee-hss.crt", '-text', '-noout');
    like($r->{out}, qr/level 1: LMS_SHAKE_M32_H5 \/ LMOTS_SHAKE_N32_W4/, 'the leaf carries the SHAKE key (text shows its top level)');
    like($r->{out}, qr/levels: 2/, '... with L = 2');
    cmd_ok(issue("$dir/ee-hss.csr", $kroot, "$dir/ee-hss-k.crt", 4), 'x509 -req issues it under the K-LMS (TDM-LEA) root');
    check_structure("$dir/ee-hss-k.crt", $kroot->{sig_len}, 'leaf under the K-LMS root');
    cmd_ok(openssl('verify', '-CAfile', $kroot->{crt}, "$dir/ee-hss-k.crt"), 'verify under the K-LMS root', qr/: OK$/m);
    cmd_fails(openssl('verify', '-CAfile', $kroot->{crt}, "$dir/ee-hss.crt"), qr/unable to get local issuer certificate/,
              'the SHA-256 root\'s leaf does not verify under the K-LMS root');

    # What the leaf's HSS key signs verifies against the certificate's public key.
    cmd_ok(openssl('pkeyutl', '-sign', '-rawin', '-inkey', $ee_key, '-in', "$dir/ee.ext", '-out', "$dir/ee.sig"), 'the leaf key signs');
    cmd_ok(openssl('pkeyutl', '-verify', '-rawin', '-certin', '-inkey', "$dir/ee-hss.crt", '-in', "$dir/ee.ext", '-sigfile', "$dir/ee.sig"),
           'pkeyutl -verify -certin with the leaf certificate', qr/Signature Verified Successfully/);

    # apps drop a requested digest for keys whose mandatory digest is UNDEF: -sha512 still gives
    # a pure HSS-LMS signature.
    cmd_ok(issue("$dir/ee-ec.csr", $root, "$dir/ee-ec-sha512.crt", 5, '-sha512'), 'x509 -req -sha512 with an HSS CA key');
    check_structure("$dir/ee-ec-sha512.crt", $root->{sig_len}, 'issued with -sha512');
    cmd_ok(openssl('verify', '-CAfile', $root->{crt}, "$dir/ee-ec-sha512.crt"), '... and it verifies', qr/: OK$/m);

    # A signing context parameter through -sigopt: reserve.
    $before = next_index($root->{key});
    cmd_ok(issue("$dir/ee-ec.csr", $root, "$dir/ee-ec-res.crt", 6, '-sigopt', 'reserve:4'), 'x509 -req -sigopt reserve:4');
    is(next_index($root->{key}), $before + 4, 'four indices reserved');
    cmd_ok(openssl('verify', '-CAfile', $root->{crt}, "$dir/ee-ec-res.crt"), '... and the certificate verifies', qr/: OK$/m);
}

# ---- Tampering ----
{
    my $der = cert_der("$dir/ee-ec.crt");
    (my $t1 = $der) =~ s/EC end entity/EC end entitY/;
    spew("$dir/tbs.crt", pem_wrap('CERTIFICATE', $t1));
    cmd_fails(openssl('verify', '-CAfile', $root->{crt}, "$dir/tbs.crt"),
              qr/certificate signature failure.*HSS\/LMS signature verification failed/s, 'subject changed: certificate signature failure',
              any => 1);
    my $sig_at = length($der) - 5 * 32 - 4 - 1;  # inside the LM-OTS y values
    my $t2 = $der;
    substr($t2, $sig_at, 1) = chr(ord(substr($t2, $sig_at, 1)) ^ 0x40);
    spew("$dir/sig.crt", pem_wrap('CERTIFICATE', $t2));
    cmd_fails(openssl('verify', '-CAfile', $root->{crt}, "$dir/sig.crt"),
              qr/certificate signature failure/, 'signature bit flipped: certificate signature failure', any => 1);
    spew("$dir/sig2.crt", pem_wrap('CERTIFICATE', substr($der, 0, -1) . chr(ord(substr($der, -1)) ^ 1)));
    cmd_fails(openssl('verify', '-CAfile', $root->{crt}, "$dir/sig2.crt"), qr/certificate signature failure/,
              'last signature byte flipped: certificate signature failure', any => 1);
    # A tampered root: its self-signature no longer verifies.
    my $rder = cert_der($root->{crt});
    (my $rt = $rder) =~ s/klms root-sha256/klms root-sha25X/g;  # issuer and subject: still self-issued
    spew("$dir/root-bad.crt", pem_wrap('CERTIFICATE', $rt));
    cmd_fails(openssl('verify', '-check_ss_sig', '-CAfile', "$dir/root-bad.crt", "$dir/root-bad.crt"),
              qr/certificate signature failure/, 'tampered root: verify -check_ss_sig fails', any => 1);
    cmd_ok(openssl('verify', '-check_ss_sig', '-CAfile', $root->{crt}, $root->{crt}), 'the intact root passes -check_ss_sig', qr/: OK$/m);
}

done_testing();
