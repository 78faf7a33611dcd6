# A firmware signer's certificate chain with HSS/LMS keys (docs/firmware.md "A strict certificate
# chain"): root CA, intermediate CA (pathlen:0) and code-signing certificate made with the shipped
# examples/firmware/firmware-ca.cnf, verified with `openssl verify -x509_strict` and a purpose check
# on the OpenSSL under test. The purpose check differs by version:
#   3.0:  no `codesign` purpose ("verify: Invalid purpose codesign"): `-purpose any` and an explicit
#         extendedKeyUsage check (`x509 -ext extendedKeyUsage` shows "Code Signing");
#   3.5+: `-purpose codesign` passes, and refuses a leaf whose EKU is serverAuth.
# (3.1 to 3.4 are not tested; they are taken as 3.0.) Also: what strict mode refuses (a CA without
# keyUsage, as `req -x509` with the system configuration makes it), a wrong EKU, and a code-signing
# key used as a CA.
use strict;
use warnings;
use Test::More;
use KlmsTest qw(:DEFAULT :cli);

my $dir = private_dir();
mkdir "$dir/state", 0700 or die;
$ENV{KLMS_STATE_DIR} = "$dir/state";
my $cnf = "$ENV{KLMS_SOURCE_DIR}/examples/firmware/firmware-ca.cnf";
ok(-f $cnf, 'examples/firmware/firmware-ca.cnf is there');
my $CODESIGN_FROM = [3, 5];

sub field { my ($text, $name) = @_; return $text =~ /^\Q$name\E: (.*)$/m ? $1 : undef }
sub next_index { return field(openssl('pkey', '-in', $_[0], '-text', '-noout')->{out}, 'next index') }
sub key {
    my ($name, @opts) = @_;
    cmd_ok(hss_genpkey("$dir/$name.key", @opts, "state-file:$dir/$name.state"), "$name: genpkey " . join(' ', @opts));
    return "$dir/$name.key";
}
sub csr {
    my ($name, $cn) = @_;
    cmd_ok(openssl('req', '-new', '-config', $cnf, '-key', "$dir/$name.key", '-subj', "/CN=$cn", '-out', "$dir/$name.csr"),
           "$name: req -new -config firmware-ca.cnf");
}
sub issue {
    my ($name, $ca, $section, $extfile) = @_;
    return openssl('x509', '-req', '-in', "$dir/$name.csr", '-CA', "$dir/$ca.crt", '-CAkey', "$dir/$ca.key", '-CAcreateserial',
                   '-extfile', $extfile // $cnf, '-extensions', $section, '-days', 365, '-out', "$dir/$name.crt");
}
sub verify { return openssl('verify', @_) }
my $OK = qr/: OK$/m;

# ---- The chain ----
key('root', 'height:5');
key('intermediate', 'height:5');
key('signer', 'lms:LMS_SHA256_M24_H5', 'ots:LMOTS_SHA256_N24_W4');  # the SHA-256/192 sets firmware uses
cmd_ok(openssl('req', '-new', '-x509', '-config', $cnf, '-extensions', 'root_ca', '-key', "$dir/root.key",
               '-subj', '/CN=Firmware Root CA', '-days', 3650, '-out', "$dir/root.crt"), 'root: req -new -x509 -extensions root_ca');
csr('intermediate', 'Firmware Intermediate CA');
cmd_ok(issue('intermediate', 'root', 'intermediate_ca'), 'intermediate: x509 -req -extensions intermediate_ca');
csr('signer', 'Firmware Signer');
cmd_ok(issue('signer', 'intermediate', 'code_signing'), 'signer: x509 -req -extensions code_signing');
is(next_index("$dir/root.key"), 2, 'the root key signed twice (itself, the intermediate)');
is(next_index("$dir/intermediate.key"), 2, 'the intermediate key twice (its CSR, the signer)');
is(next_index("$dir/signer.key"), 1, 'the signer key signed its CSR (req -new: one index)');

my %want = (
    root => [qr/Version: 3 \(0x2\)/, qr/Basic Constraints: critical\n\s+CA:TRUE\n/,
             qr/Key Usage: critical\n\s+Certificate Sign, CRL Sign\n/, qr/Subject Key Identifier/],
    intermediate => [qr/Version: 3 \(0x2\)/, qr/Basic Constraints: critical\n\s+CA:TRUE, pathlen:0\n/,
                     qr/Key Usage: critical\n\s+Certificate Sign, CRL Sign\n/, qr/Subject Key Identifier/,
                     qr/Authority Key Identifier/],
    signer => [qr/Version: 3 \(0x2\)/, qr/Basic Constraints: critical\n\s+CA:FALSE\n/,
               qr/Key Usage: critical\n\s+Digital Signature\n/, qr/Extended Key Usage: \n\s+Code Signing\n/,
               qr/Subject Key Identifier/, qr/Authority Key Identifier/, qr/level 1: LMS_SHA256_M24_H5 \/ LMOTS_SHA256_N24_W4/],
);
for my $name (qw(root intermediate signer)) {
    my $t = openssl('x509', '-in', "$dir/$name.crt", '-noout', '-text')->{out};
    like($t, $_, "$name certificate: $_") for @{ $want{$name} };
}

# ---- Strict verification and the purpose ----
my @chain = ('-CAfile', "$dir/root.crt", '-untrusted', "$dir/intermediate.crt", "$dir/signer.crt");
cmd_ok(verify('-x509_strict', @chain), 'verify -x509_strict: root -> intermediate -> signer', $OK);
cmd_ok(verify('-x509_strict', '-check_ss_sig', @chain), '... also with -check_ss_sig (the root\'s self-signature)', $OK);
cmd_ok(verify('-x509_strict', '-CAfile', "$dir/root.crt", "$dir/intermediate.crt"), 'the intermediate alone under the root', $OK);
my $eku = openssl('x509', '-in', "$dir/signer.crt", '-noout', '-ext', 'extendedKeyUsage');
cmd_ok($eku, 'x509 -ext extendedKeyUsage', qr/X509v3 Extended Key Usage: ?\n\s+Code Signing\n/);
if (openssl_at_least(@$CODESIGN_FROM)) {
    cmd_ok(verify('-x509_strict', '-purpose', 'codesign', @chain), 'OpenSSL 3.5+: verify -x509_strict -purpose codesign', $OK);
} else {
    cmd_fails(verify('-x509_strict', '-purpose', 'codesign', @chain), qr/Invalid purpose codesign/,
              'OpenSSL 3.0: there is no codesign purpose ("Invalid purpose codesign")');
}
cmd_ok(verify('-x509_strict', '-purpose', 'any', @chain), 'verify -x509_strict -purpose any (what 3.0 checks, with the EKU above)', $OK);
cmd_fails(verify('-x509_strict', '-purpose', 'smimesign', @chain), qr/unsuitable certificate purpose/,
          'the purpose is checked: a code-signing certificate is not an S/MIME signer', any => 1);

# ---- What strict mode and the purpose refuse ----
{
    # The root `req -x509` makes with the system configuration (v3_ca): no keyUsage. Plain verify
    # accepts the chain under it; -x509_strict does not.
    cmd_ok(openssl('req', '-new', '-x509', '-key', "$dir/root.key", '-subj', '/CN=Plain Root', '-days', 30, '-out', "$dir/plain.crt"),
           'a root from req -x509 without -extensions');
    symlink("$dir/root.key", "$dir/plain.key") or die;  # the same key under the second root's name
    unlike(openssl('x509', '-in', "$dir/plain.crt", '-noout', '-text')->{out}, qr/X509v3 Key Usage/, '... has no keyUsage');
    cmd_ok(issue('intermediate', 'plain', 'intermediate_ca'), '... issues the intermediate');
    rename "$dir/intermediate.crt", "$dir/int-under-plain.crt" or die;
    my @plain = ('-CAfile', "$dir/plain.crt", '-untrusted', "$dir/int-under-plain.crt", "$dir/signer.crt");
    cmd_ok(verify(@plain), 'plain verify accepts a CA without keyUsage', $OK);
    cmd_fails(verify('-x509_strict', @plain), qr/CA cert does not include key usage extension/,
              '-x509_strict refuses it: "CA cert does not include key usage extension"', any => 1);
    cmd_ok(issue('intermediate', 'root', 'intermediate_ca'), 'the intermediate again under the real root');

    # A signer whose EKU is serverAuth, not codeSigning.
    spew("$dir/tls.cnf", "[tls]\nbasicConstraints = critical, CA:FALSE\nkeyUsage = critical, digitalSignature\n"
                        . "extendedKeyUsage = serverAuth\nsubjectKeyIdentifier = hash\nauthorityKeyIdentifier = keyid:always\n");
    cmd_ok(issue('signer', 'intermediate', 'tls', "$dir/tls.cnf"), 'a signer certificate with EKU serverAuth');
    rename "$dir/signer.crt", "$dir/tls.crt" or die;
    my @tls = ('-CAfile', "$dir/root.crt", '-untrusted', "$dir/intermediate.crt", "$dir/tls.crt");
    cmd_ok(verify('-x509_strict', '-purpose', 'any', @tls), '-purpose any accepts it (strictness is not the purpose)', $OK);
    unlike(openssl('x509', '-in', "$dir/tls.crt", '-noout', '-ext', 'extendedKeyUsage')->{out}, qr/Code Signing/,
           '... which is why 3.0 needs the EKU check: no "Code Signing" there');
    if (openssl_at_least(@$CODESIGN_FROM)) {
        cmd_fails(verify('-x509_strict', '-purpose', 'codesign', @tls), qr/unsuitable certificate purpose/,
                  'OpenSSL 3.5+: -purpose codesign refuses EKU serverAuth', any => 1);
    }
    cmd_ok(issue('signer', 'intermediate', 'code_signing'), 'the signer certificate again');

    # The code-signing key used as a CA: it may not issue certificates.
    key('rogue', 'height:5');
    csr('rogue', 'Rogue');
    cmd_ok(openssl('x509', '-req', '-in', "$dir/rogue.csr", '-CA', "$dir/signer.crt", '-CAkey', "$dir/signer.key",
                   '-CAcreateserial', '-extfile', $cnf, '-extensions', 'code_signing', '-out', "$dir/rogue.crt"),
           'openssl x509 lets the signer key issue a certificate');
    spew("$dir/untrusted.pem", slurp("$dir/intermediate.crt") . slurp("$dir/signer.crt"));
    cmd_fails(verify('-x509_strict', '-CAfile', "$dir/root.crt", '-untrusted', "$dir/untrusted.pem", "$dir/rogue.crt"),
              qr/invalid CA certificate|path length constraint exceeded|key usage does not include certificate signing/,
              'verify refuses it: the signer is not a CA (and pathlen:0 allows none)', any => 1);
}

# ---- Tampering: a changed subject is caught by the HSS/LMS signature ----
{
    my $der = pem_body(slurp("$dir/signer.crt"));
    (my $bad = $der) =~ s/Firmware Signer/Firmware Signex/ or die;
    spew("$dir/bad.crt", pem_wrap('CERTIFICATE', $bad));
    cmd_fails(verify('-x509_strict', '-CAfile', "$dir/root.crt", '-untrusted', "$dir/intermediate.crt", "$dir/bad.crt"),
              qr/certificate signature failure/, 'a changed subject: certificate signature failure', any => 1);
}

done_testing();
