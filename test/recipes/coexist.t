# Next to OpenSSL's own LMS (docs/openssl-versions.md "Next to OpenSSL's own LMS"). OpenSSL 3.6+ built with
# enable-lms has a verify-only LMS in its default provider: on 3.6 named "LMS" only, on 4.0
# "LMS:id-alg-hss-lms-hashsig:<OID>", so on 4.0 its names merge with ours into one algorithm.
# 3.6's LMS has no decoder for the OID's SubjectPublicKeyInfo (the OID is not one of its names), so
# OpenSSL alone cannot load a klms public key there; 4.0's can (L = 1, standard sets).
# By design klms decodes, signs and verifies every HSS/LMS key and signature: OpenSSL's LMS verifies
# bare RFC 8554 LMS signatures only (no u32 Nspk, so not the RFC 9708 HSS signatures X.509 and CMS
# carry), only L = 1 and only the standard sets. conf/klms.cnf prefers klms (?provider=klms).
# Checked here, on every version (parts need a default provider with LMS and are skipped otherwise):
#   - each implementation verifies the other's signatures where both support the set: klms-made
#     signatures (SHA-256 M32, SHA-256/192 M24, SHAKE) as bare LMS by OpenSSL alone, and RFC 9858's
#     known answers by both;
#   - K-LMS and L = 2 keys are refused by OpenSSL's own decoder (never reach its verifier), and
#     verify through klms with both providers loaded;
#   - through the configuration both providers are loaded and genpkey, pkeyutl, req/x509 and CMS
#     work without any property query; with -provider (no configuration) `-propquery ?provider=klms`
#     does it on 4.0 and the default choice is named.
use strict;
use warnings;
use Test::More;
use KlmsTest qw(:DEFAULT :cli);

my $dir = private_dir();
mkdir "$dir/state", 0700 or die;
$ENV{KLMS_STATE_DIR} = "$dir/state";
my $data = $ENV{KLMS_TEST_DATA} or die 'KLMS_TEST_DATA not set';
my $VERIFIED = qr/Signature Verified Successfully/;
my %default_only = (env => { OPENSSL_CONF => '/dev/null', OPENSSL_MODULES => undef });
my $lms = default_has_lms();
# OpenSSL alone reads an HSS/LMS SubjectPublicKeyInfo: 4.0 built with enable-lms.
my $lms_spki = $lms && openssl_at_least(4, 0);
my $v = openssl_version();
diag("OpenSSL $v->[0].$v->[1].$v->[2], default provider LMS: " . ($lms ? 'yes' : 'no'));
if (openssl_at_least(3, 6)) {
    ok(1, "OpenSSL 3.6+: the default provider's own LMS is " . ($lms ? 'built in (enable-lms)' : 'not built (no-lms, as Debian ships it)'));
} else {
    is($lms, 0, 'before 3.6 OpenSSL has no LMS of its own');
}

spew("$dir/msg", "coexistence message\n" x 5);
sub pub_pem { my ($raw) = @_; return pem_wrap('PUBLIC KEY', hss_spki_der($raw)) }
sub raw_pub_of {  # the raw HSS public key of a key file (the SPKI's BIT STRING minus its 00)
    my ($key) = @_;
    my $r = openssl('pkey', '-in', $key, '-pubout', '-outform', 'DER');
    my ($spki) = der_items($r->{out});
    my (undef, $bits) = der_items($spki->{content});
    return substr($bits->{content}, 1);
}
sub default_verify {  # OpenSSL alone (no klms): pkeyutl -verify -rawin of a bare LMS signature
    my ($pub, $sig) = @_;
    return openssl('pkeyutl', '-verify', '-rawin', '-pubin', '-inkey', $pub, '-in', "$dir/msg", '-sigfile', $sig, \%default_only);
}

# ---- klms signatures verified by OpenSSL's own LMS (bare LMS form), and by klms ----
my @sets = (
    ['SHA-256 M32 H5 W4', 'height:5'],
    ['SHA-256/192 M24 H5 W8', 'lms:LMS_SHA256_M24_H5', 'ots:LMOTS_SHA256_N24_W8'],
    ['SHAKE M32 H5 W4', 'hash:SHAKE', 'height:5'],
);
my $i = 0;
for my $set (@sets) {
    my ($name, @opts) = @$set;
    $i++;
    my $key = "$dir/k$i.pem";
    cmd_ok(hss_genpkey($key, @opts, "state-file:$dir/k$i.state"), "$name: genpkey through the configuration (no property query)");
    cmd_ok(openssl('pkeyutl', '-sign', '-rawin', '-inkey', $key, '-in', "$dir/msg", '-out', "$dir/k$i.sig"), "$name: klms signs");
    my $raw = raw_pub_of($key);
    spew("$dir/k$i.pub", pub_pem($raw));
    my $sig = slurp("$dir/k$i.sig");
    is(unpack('N', $sig), 0, "$name: HSS signature with Nspk = 0 (L = 1)");
    spew("$dir/k$i.lmssig", substr($sig, 4));
    cmd_ok(openssl('pkeyutl', '-verify', '-rawin', '-pubin', '-inkey', "$dir/k$i.pub", '-in', "$dir/msg", '-sigfile', "$dir/k$i.sig"),
           "$name: klms verifies it (both providers loaded, no property query)", $VERIFIED);
    if ($lms && !$lms_spki) {
        cmd_fails(default_verify("$dir/k$i.pub", "$dir/k$i.lmssig"), cannot_load_re('public key'),
                  "$name: OpenSSL 3.6's own LMS alone cannot read the SubjectPublicKeyInfo (no decoder for the OID)");
    }
  SKIP: {
        skip 'the default provider has no LMS that reads SubjectPublicKeyInfo', 3 unless $lms_spki;
        cmd_ok(default_verify("$dir/k$i.pub", "$dir/k$i.lmssig"), "$name: OpenSSL's own LMS alone verifies the bare LMS signature",
               $VERIFIED);
        cmd_fails(default_verify("$dir/k$i.pub", "$dir/k$i.sig"), qr/Signature Verification Failure|verif/i,
                  "$name: ... but not the RFC 9708 HSS signature (why klms verifies X.509/CMS)", status => 1);
        flip_byte("$dir/k$i.lmssig", "$dir/k$i.bad", -1);
        cmd_fails(default_verify("$dir/k$i.pub", "$dir/k$i.bad"), qr/Signature Verification Failure|verif/i,
                  "$name: ... and a flipped bit fails there too", status => 1);
    }
}

# ---- Known answers (RFC 9858 Appendix A, L = 1): both implementations verify them ----
sub ini_sections {
    my ($file) = @_;
    my (@out, $cur);
    for (split /\r?\n/, slurp($file)) {
        if (/^\[(.+)\]/) { push @out, $cur = { name => $1 } }
        elsif ($cur && /^\s*(\w+)\s*=\s*(\S*)\s*$/) { $cur->{$1} = $2 }
    }
    return @out;
}
for my $s (ini_sections("$data/lms/rfc9858/rfc9858_appendixA.txt")) {
    my ($id) = $s->{name} =~ /^(\S+)/;
    my $f = "$dir/$id";
    spew("$f.pub", pub_pem(unhex($s->{public_key})));
    spew("$f.msg", unhex($s->{message}));
    spew("$f.sig", unhex($s->{signature}));
    spew("$f.lmssig", substr(unhex($s->{signature}), 4));
    cmd_ok(openssl('pkeyutl', '-verify', '-rawin', '-pubin', '-inkey', "$f.pub", '-in', "$f.msg", '-sigfile', "$f.sig"),
           "$id: klms verifies the known answer", $VERIFIED);
  SKIP: {
        skip 'the default provider has no LMS that reads SubjectPublicKeyInfo', 1 unless $lms_spki;
        cmd_ok(openssl('pkeyutl', '-verify', '-rawin', '-pubin', '-inkey', "$f.pub", '-in', "$f.msg", '-sigfile', "$f.lmssig",
                       \%default_only), "$id: OpenSSL's own LMS verifies it (bare LMS form)", $VERIFIED);
    }
}

# ---- K-LMS and L = 2 keys never reach OpenSSL's LMS: its decoder refuses them; klms verifies ----
for my $case (['K-LMS (LSH-256)', 'hash:LSH256', 'height:5'], ['K-LMS (TDM-LEA)', 'hash:TDMLEA', 'height:5'],
              ['L = 2', 'height:5,5']) {
    my ($name, @opts) = @$case;
    $i++;
    my $key = "$dir/k$i.pem";
    cmd_ok(hss_genpkey($key, @opts, "state-file:$dir/k$i.state"), "$name: genpkey");
    cmd_ok(openssl('pkeyutl', '-sign', '-rawin', '-inkey', $key, '-in', "$dir/msg", '-out', "$dir/k$i.sig"), "$name: signs");
    spew("$dir/k$i.pub", pub_pem(raw_pub_of($key)));
    cmd_ok(openssl('pkeyutl', '-verify', '-rawin', '-pubin', '-inkey', "$dir/k$i.pub", '-in', "$dir/msg", '-sigfile', "$dir/k$i.sig"),
           "$name: verifies with both providers loaded", $VERIFIED);
    my $r = openssl('pkey', '-pubin', '-in', "$dir/k$i.pub", '-noout', \%default_only);
    cmd_fails($r, cannot_load_re('key of Public Key'), "$name: OpenSSL alone cannot decode the public key"
              . ($lms_spki ? ' (its own LMS decoder refuses it)' : ' (no decoder for the OID)'));
    # Asking for the default provider's implementation explicitly with klms loaded: refused the same
    # way, never a wrong answer.
    $r = openssl('pkeyutl', '-verify', '-rawin', '-pubin', '-inkey', "$dir/k$i.pub", '-in', "$dir/msg", '-sigfile', "$dir/k$i.sig",
                 '-propquery', 'provider=default');
    ok($r->{status} != 0 && !$r->{signal} && $r->{out} !~ $VERIFIED, "$name: -propquery provider=default: refused, not verified");
}

# ---- Loading with -provider (no configuration): which implementation answers ----
# Without a property query OpenSSL takes the implementation of the provider loaded first. On 4.0
# with its own LMS (one merged algorithm) `-provider default -provider klms` therefore gets the
# default provider's verify-only key manager and genpkey fails; `-provider klms -provider default`
# or `-propquery ?provider=klms` (what conf/klms.cnf sets for every command) picks klms.
{
    my @path = ('-provider-path', $ENV{KLMS_PROVIDER_DIR});
    my %noconf = (env => { OPENSSL_CONF => '/dev/null' });
    my $n = 0;
    my $gen = sub {
        my @args = @_;
        $n++;
        return openssl('genpkey', @path, @args, '-algorithm', 'HSS-LMS', '-pkeyopt', 'height:5',
                       '-pkeyopt', "state-file:$dir/p$n.state", '-out', "$dir/p$n.pem", \%noconf);
    };
    my $r = $gen->('-provider', 'default', '-provider', 'klms');
    if (openssl_at_least(4, 0) && $lms) {
        cmd_fails($r, qr/operation not supported for this keytype/,
                  'OpenSSL 4.0 with its own LMS: -provider default -provider klms: genpkey gets the verify-only key manager');
    } else {
        cmd_ok($r, '-provider default -provider klms: genpkey (no other HSS-LMS key manager to pick)');
    }
    cmd_ok($gen->('-provider', 'default', '-provider', 'klms', '-propquery', '?provider=klms'),
           '-provider default -provider klms -propquery ?provider=klms: genpkey');
    my $key = "$dir/p$n.pem";
    cmd_ok($gen->('-provider', 'klms', '-provider', 'default'), '-provider klms -provider default: genpkey');
    my @prov = (@path, '-provider', 'default', '-provider', 'klms', '-propquery', '?provider=klms');
    cmd_ok(openssl('pkeyutl', @prov, '-sign', '-rawin', '-inkey', $key, '-in', "$dir/msg", '-out', "$dir/p.sig", \%noconf),
           'pkeyutl -sign -propquery ?provider=klms');
    cmd_ok(openssl('pkeyutl', @prov, '-verify', '-rawin', '-inkey', $key, '-in', "$dir/msg", '-sigfile', "$dir/p.sig", \%noconf),
           '... and -verify', $VERIFIED);
}

# ---- X.509 and CMS through the configuration with both providers loaded ----
{
    my $key = "$dir/ca.pem";
    cmd_ok(hss_genpkey($key, 'height:5', "state-file:$dir/ca.state"), 'CA key');
    cmd_ok(openssl('req', '-new', '-x509', '-key', $key, '-subj', '/CN=coexist', '-days', 2, '-out', "$dir/ca.crt"),
           'req -new -x509');
    cmd_ok(openssl('verify', '-CAfile', "$dir/ca.crt", "$dir/ca.crt"), 'verify', qr/: OK$/m);
    my $r = openssl('cms', '-sign', '-md', 'sha256', '-nodetach', '-binary', '-in', "$dir/msg", '-signer', "$dir/ca.crt", '-inkey', $key,
                    '-outform', 'DER', '-out', "$dir/msg.cms");
    if (openssl_at_least(3, 5)) {
        # 3.5+ signs the signed attributes purely (EVP_DigestSign without a digest) for a key whose
        # mandatory digest is none; -md names the digestAlgorithm of the content (RFC 9708).
        cmd_ok($r, 'OpenSSL 3.5+: stock cms -sign -md sha256');
        cmd_ok(openssl('cms', '-verify', '-binary', '-inform', 'DER', '-in', "$dir/msg.cms", '-CAfile', "$dir/ca.crt",
                       '-out', "$dir/msg.out"), 'cms -verify');
        is(slurp("$dir/msg.out"), slurp("$dir/msg"), '... gives back the content');
    } else {
        # 3.0's CMS cannot sign with a digest-less provider key (klms-cms-sign is for 3.0; cms.t).
        cmd_fails($r, qr/illegal zero content|no default digest|error/i, 'OpenSSL 3.0: stock cms -sign fails cleanly (use klms-cms-sign)');
    }
}

done_testing();
