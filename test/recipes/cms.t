# CMS SignedData (RFC 9708) made by klms-cms-sign and checked by the real `openssl cms -verify`
# with SHA-256, SHAKE, LSH-256 and TDM-ARIA signer keys, attached and detached content, PEM and
# DER; tampered content and signatures rejected; the structure (`cms -cmsout -print` and the DER
# itself): digestAlgorithm, signatureAlgorithm id-alg-hss-lms-hashsig without parameters, signed
# attributes, the signer certificate. Also the tool's own options, errors and exit codes.
use strict;
use warnings;
use Test::More;
use KlmsTest qw(:DEFAULT :cli);

my $dir = private_dir();
mkdir "$dir/state", 0700 or die;
$ENV{KLMS_STATE_DIR} = "$dir/state";
my $tool = tool('klms-cms-sign');
my $ALG_ID = unhex('300d060b2a864886f70d0109100311');
my $content = "$dir/content.txt";
spew($content, "Line one\nLine two, no CR\n\x00\x01\x02 binary tail\n");
my %no_provider = (env => { OPENSSL_CONF => '/dev/null', OPENSSL_MODULES => undef });
# The first version tested whose CMS writes a 64-byte SHAKE256 messageDigest (see below).
my @SHAKE512_FROM = (3, 5);

sub field { my ($text, $name) = @_; return $text =~ /^\Q$name\E: (.*)$/m ? $1 : undef }
sub next_index { return field(openssl('pkey', '-in', $_[0], '-text', '-noout')->{out}, 'next index') }
sub cms_sign { my (@args) = @_; my $opts = @args && ref $args[-1] eq 'HASH' ? pop @args : {}; return run_cmd([$tool, @args], %$opts) }
sub cms_verify {
    my ($root, $in, %o) = @_;
    return openssl('cms', '-verify', '-CAfile', $root, '-inform', $o{inform} // 'PEM', '-in', $in,
                   ($o{content} ? ('-content', $o{content}, '-binary') : ()), '-out', $o{out} // '/dev/null');
}
my $OK = qr/CMS Verification successful/;
# `openssl cms -verify` succeeded: exit 0, its message on stderr, no crash or sanitizer report.
sub verified {
    my ($r, $name) = @_;
    local $Test::Builder::Level = $Test::Builder::Level + 1;
    return ok($r->{status} == 0 && !$r->{signal} && !defined sanitizer_report($r) && $r->{err} =~ $OK, $name)
        || diag("exit $r->{status}, signal $r->{signal}\n$r->{err}");
}

# ---- A CA and signer certificates ----
cmd_ok(hss_genpkey("$dir/root.key", 'height:5', "state-file:$dir/root.state"), 'root key');
my $root = "$dir/root.crt";
cmd_ok(openssl('req', '-new', '-x509', '-key', "$dir/root.key", '-subj', '/CN=klms CMS root', '-days', 30,
               '-addext', 'basicConstraints=critical,CA:TRUE', '-addext', 'keyUsage=critical,keyCertSign', '-out', $root), 'root certificate');
spew("$dir/leaf.ext", "basicConstraints=critical,CA:FALSE\nkeyUsage=critical,digitalSignature\n");
my $serial = 1;
sub signer {
    my ($name, @pkeyopt) = @_;
    my $s = { name => $name, key => "$dir/$name.key", crt => "$dir/$name.crt" };
    cmd_ok(hss_genpkey($s->{key}, @pkeyopt, "state-file:$dir/$name.state"), "$name: signer key");
    cmd_ok(openssl('req', '-new', '-key', $s->{key}, '-subj', "/CN=klms CMS $name", '-out', "$dir/$name.csr"), "$name: CSR");
    cmd_ok(openssl('x509', '-req', '-in', "$dir/$name.csr", '-CA', $root, '-CAkey', "$dir/root.key", '-set_serial', ++$serial,
                   '-days', 10, '-extfile', "$dir/leaf.ext", '-out', $s->{crt}), "$name: certificate from the root");
    my $t = openssl('pkey', '-in', $s->{key}, '-text', '-noout')->{out};
    my ($lms) = $t =~ /^level \d+: (\S+)/m;
    my @levels = $t =~ /^level \d+: (\S+) \/ (\S+)$/mg;
    $s->{shapes} = state_shapes(join(',', @levels[grep { $_ % 2 == 0 } 0 .. $#levels]), join(',', @levels[grep { $_ % 2 } 0 .. $#levels]));
    $s->{shake} = $lms =~ /^LMS_SHAKE_/;
    return $s;
}

my @signers = (
    signer('sha256', 'height:5'),
    signer('shake', 'hash:SHAKE', 'height:5'),
    signer('shake192', 'hash:SHAKE/192', 'height:5'),
    signer('lsh256', 'hash:LSH256', 'height:5,5'),
    signer('tdmaria', 'hash:TDMARIA', 'height:5'),
);

for my $s (@signers) {
    subtest "CMS with the $s->{name} key" => sub {
        my $before = next_index($s->{key});
        # Attached, PEM.
        my $att = "$dir/$s->{name}.att.pem";
        my $r = cms_sign('-signer', $s->{crt}, '-inkey', $s->{key}, '-in', $content, '-out', $att);
        cmd_ok($r, 'klms-cms-sign, attached, PEM');
        like(slurp($att), qr/\A-----BEGIN CMS-----\n/, 'PEM "CMS"');
        is(next_index($s->{key}), $before + 1, 'one index used');
        $r = cms_verify($root, $att, out => "$dir/$s->{name}.out");
        verified($r, 'openssl cms -verify -CAfile root accepts it');
        is(slurp("$dir/$s->{name}.out"), slurp($content), 'and gives back the content, byte for byte');

        # Detached, DER.
        my $det = "$dir/$s->{name}.det.der";
        $r = cms_sign('-signer', $s->{crt}, '-inkey', $s->{key}, '-in', $content, '-out', $det, '-detached', '-outform', 'DER');
        cmd_ok($r, 'klms-cms-sign -detached -outform DER');
        ok(index(slurp($det), 'Line two') < 0, 'the detached SignedData does not hold the content');
        $r = cms_verify($root, $det, inform => 'DER', content => $content);
        verified($r, 'cms -verify -content accepts the detached signature');

        # Tampering.
        spew("$dir/tampered.txt", slurp($content) =~ s/Line two/Line twO/r);
        cmd_fails(cms_verify($root, $det, inform => 'DER', content => "$dir/tampered.txt"),
                  qr/CMS Verification failure.*content verify error/s, 'detached: tampered content rejected', status => 4);
        my $att_der = pem_body(slurp($att));
        spew("$dir/tampered-att.der", $att_der =~ s/Line two/Line twO/r);
        cmd_fails(cms_verify($root, "$dir/tampered-att.der", inform => 'DER'),
                  qr/CMS Verification failure.*content verify error/s, 'attached: tampered content rejected', status => 4);
        my $last = $s->{shapes}[-1];
        flip_byte($det, "$dir/tampered-sig.der", -($last->{h} * $last->{m} + 4 + 1), 0x10);
        cmd_fails(cms_verify($root, "$dir/tampered-sig.der", inform => 'DER', content => $content),
                  qr/CMS Verification failure.*HSS\/LMS signature verification failed/s, 'tampered signature rejected', status => 4);
        cmd_fails(cms_verify("$dir/$s->{name}.crt", $att),
                  qr/CMS Verification failure.*unable to get local issuer certificate/s, 'not trusted without the root', status => 4);

        # Structure, as openssl prints it.
        $r = openssl('cms', '-cmsout', '-print', '-inform', 'DER', '-in', $det);
        cmd_ok($r, 'cms -cmsout -print');
        my $p = $r->{out};
        my $md = $s->{shake} ? 'shake256 \(2\.16\.840\.1\.101\.3\.4\.2\.12\)' : 'sha256 \(2\.16\.840\.1\.101\.3\.4\.2\.1\)';
        like($p, qr/digestAlgorithms:\s*\n\s*algorithm: $md\s*\n\s*parameter: <ABSENT>/, 'SignedData.digestAlgorithms: ' . ($s->{shake} ? 'SHAKE256' : 'SHA-256'));
        like($p, qr/signerInfos:.*digestAlgorithm:\s*\n\s*algorithm: $md\s*\n\s*parameter: <ABSENT>/s, 'SignerInfo.digestAlgorithm the same');
        like($p, qr/signatureAlgorithm:\s*\n\s*algorithm: \S+ \(1\.2\.840\.113549\.1\.9\.16\.3\.17\)\s*\n\s*parameter: <ABSENT>/,
             'signatureAlgorithm: id-alg-hss-lms-hashsig, parameters absent');
        like($p, qr/signedAttrs:.*object: contentType \(1\.2\.840\.113549\.1\.9\.3\)/s, 'signed attribute contentType');
        like($p, qr/signedAttrs:.*object: messageDigest \(1\.2\.840\.113549\.1\.9\.4\)/s, 'signed attribute messageDigest');
        like($p, qr/signedAttrs:.*object: signingTime \(1\.2\.840\.113549\.1\.9\.5\)/s, 'signed attribute signingTime');
        unlike($p, qr/SMIMECapabilities|sMIMECapabilities/i, 'no S/MIME capabilities');
        # 3.0 prints "subject: CN=...", 4.0 aligns the values ("subject:           CN=...").
        like($p, qr/certificates:\s*\n\s*d\.certificate:.*subject: +CN=klms CMS \Q$s->{name}\E/s, 'the signer certificate is included');
        like($p, qr/eContent: <ABSENT>/, 'detached: eContent absent');

        # The DER: the SignerInfo's signatureAlgorithm is exactly { OID } and the signature follows.
        my $der = slurp($det);
        ok(index($der, $ALG_ID . "\x04\x82") > 0, 'signatureAlgorithm bytes 300d060b2a864886f70d0109100311, then the signature OCTET STRING');
        # messageDigest is the digest of the content: SHA-256, or SHAKE256, whose output OpenSSL's CMS
        # makes 32 bytes in 3.0 (SHAKE256's old default length) and 64 bytes (512 bits, as RFC 8702
        # section 3.2 asks for id-shake256) in 3.5, 3.6 and 4.0, where SHAKE also has no default
        # length for dgst (3.1 to 3.4 not tested, taken as 3.0).
        my $long = openssl_at_least(@SHAKE512_FROM);
        my ($digest) = $p =~ /messageDigest.*?OCTET STRING:[^\n]*\n((?:[ \t]+[0-9a-f]{4} - [^\n]*\n)+)/s;
        my $hex = join('', map { /^\s*[0-9a-f]{4} - ([0-9a-f -]+?)\s{2,}/ ? $1 =~ s/[ -]//gr : '' } split /\n/, $digest // '');
        my @md = !$s->{shake} ? ('-sha256') : $long ? ('-shake256', '-xoflen', 64) : ('-shake256');
        my $want = openssl('dgst', @md, '-r', $content)->{out};
        ($want) = $want =~ /^([0-9a-f]+)/;
        is($hex, $want, 'messageDigest = ' . (!$s->{shake} ? 'SHA-256' : $long ? 'SHAKE256/512' : 'SHAKE256/256')
                        . ' of the content');
    };
}

# ---- The tool: options, formats, errors, exit codes ----
my ($s1, $shake) = @signers;
{
    my $r = cms_sign('--help');
    cmd_ok($r, '--help exits 0', qr/^Usage: klms-cms-sign -signer CERT/);
    like($r->{out}, qr/-certfile FILE.*-detached.*-outform PEM\|DER.*-pass ARG.*-provider NAME/s, '--help lists the options');
    cmd_ok(cms_sign('-help'), '-help exits 0', qr/^Usage:/);
    cmd_fails(cms_sign('-bogus'), qr/unknown option '-bogus'.*use -help/s, 'unknown option: exit 2', status => 2);
    cmd_fails(cms_sign('-in', $content), qr/-signer is required/, 'no -signer: exit 2', status => 2);
    cmd_fails(cms_sign('-signer', $s1->{crt}, '-in'), qr/option -in needs a value/, 'option without its value: exit 2', status => 2);
    cmd_fails(cms_sign('-signer', $s1->{crt}, '-outform', 'SMIME'), qr/-outform: 'SMIME' is not PEM or DER/, 'bad -outform: exit 2', status => 2);
    cmd_fails(cms_sign('-signer', $s1->{crt}, '-inkey', $s1->{key}, '-in', $content, '-pass', 'plain'),
              qr/-pass: 'plain' is not pass:TEXT, env:VAR, file:PATH or stdin/, 'bad -pass: exit 1', status => 1);

    my $before = next_index($s1->{key});
    cmd_fails(cms_sign('-signer', "$dir/nope.crt", '-inkey', $s1->{key}, '-in', $content, '-out', "$dir/x.pem"),
              qr/cannot open certificate .*nope\.crt: No such file/, 'missing certificate: exit 1', status => 1);
    cmd_fails(cms_sign('-signer', $content, '-inkey', $s1->{key}, '-in', $content, '-out', "$dir/x.pem"),
              qr/cannot read a certificate \(PEM or DER\)/, 'not a certificate: exit 1', status => 1);
    cmd_fails(cms_sign('-signer', $s1->{crt}, '-inkey', "$dir/nope.key", '-in', $content, '-out', "$dir/x.pem"),
              qr/cannot open private key .*nope\.key: No such file/, 'missing key: exit 1', status => 1);
    cmd_fails(cms_sign('-signer', $s1->{crt}, '-inkey', $s1->{key}, '-in', "$dir/nope.txt", '-out', "$dir/x.pem"),
              qr/cannot open content .*nope\.txt: No such file/, 'missing content: exit 1', status => 1);
    cmd_fails(cms_sign('-signer', $s1->{crt}, '-inkey', $s1->{key}, '-in', $content, '-out', "$dir/no/such/dir/x.pem"),
              qr/cannot open output/, 'unwritable output: exit 1', status => 1);
    cmd_fails(cms_sign('-signer', $s1->{crt}, '-inkey', $shake->{key}, '-in', $content, '-out', "$dir/x.pem"),
              qr/does not belong to the certificate/, 'key and certificate do not match: exit 1', status => 1);
    is(next_index($s1->{key}), $before, 'none of these failures used an index');

    cmd_ok(openssl('genpkey', '-algorithm', 'EC', '-pkeyopt', 'ec_paramgen_curve:P-256', '-out', "$dir/ec.key"), 'an EC key');
    cmd_ok(openssl('req', '-new', '-x509', '-key', "$dir/ec.key", '-subj', '/CN=ec', '-out', "$dir/ec.crt"), 'and its certificate');
    cmd_fails(cms_sign('-signer', "$dir/ec.crt", '-inkey', "$dir/ec.key", '-in', $content, '-out', "$dir/x.pem"),
              qr/the key is EC, not HSS\/LMS; use openssl cms -sign for other keys/, 'an EC key: exit 1', status => 1);

    # Key and certificate in one file (no -inkey), stdin to stdout, DER, extra certificates.
    spew("$dir/both.pem", slurp($s1->{crt}) . slurp($s1->{key}));
    $r = cms_sign('-signer', "$dir/both.pem", '-outform', 'DER', '-certfile', $root, { stdin => slurp($content) });
    cmd_ok($r, 'key from the -signer file, content from stdin, DER to stdout');
    spew("$dir/stdout.der", $r->{out});
    $r = cms_verify($root, "$dir/stdout.der", inform => 'DER', out => "$dir/stdout.out");
    verified($r, '... verifies');
    is(slurp("$dir/stdout.out"), slurp($content), '... with the content from stdin');
    my $p = openssl('cms', '-cmsout', '-print', '-inform', 'DER', '-in', "$dir/stdout.der")->{out};
    my @certs = $p =~ /d\.certificate:/g;
    is(scalar @certs, 2, '-certfile adds the root next to the signer certificate');
    $r = cms_sign('-signer', $s1->{crt}, '-inkey', $s1->{key}, '-in', $content, '-out', "$dir/nodetach.pem", '-detached', '-nodetach');
    cmd_ok($r, '-nodetach after -detached');
    like(openssl('cms', '-cmsout', '-print', '-in', "$dir/nodetach.pem", '-inform', 'PEM')->{out}, qr/eContent:\s*\n\s*0000 - 4c 69/,
         '... the content is attached');
    $r = cms_sign('--signer', $s1->{crt}, '--inkey', $s1->{key}, '--in', $content, '--out', "$dir/dashdash.pem");
    cmd_ok($r, 'double-dash options work too');
    # An empty message.
    spew("$dir/empty", '');
    cmd_ok(cms_sign('-signer', $s1->{crt}, '-inkey', $s1->{key}, '-in', "$dir/empty", '-out', "$dir/empty.pem"), 'an empty content');
    $r = cms_verify($root, "$dir/empty.pem");
    verified($r, '... verifies');

    # Encrypted keys and -pass.
    cmd_ok(openssl('pkey', '-in', $s1->{key}, '-aes256', '-passout', 'pass:s3cret', '-out', "$dir/enc.key"), 'encrypt the signer key');
    cmd_ok(cms_sign('-signer', $s1->{crt}, '-inkey', "$dir/enc.key", '-pass', 'pass:s3cret', '-in', $content, '-out', "$dir/enc.pem"),
           '-pass pass:');
    cmd_ok(cms_sign('-signer', $s1->{crt}, '-inkey', "$dir/enc.key", '-pass', 'env:KLMS_TEST_PASS', '-in', $content, '-out', "$dir/enc2.pem",
                    { env => { KLMS_TEST_PASS => 's3cret' } }), '-pass env:');
    spew("$dir/pass.txt", "s3cret\n");
    cmd_ok(cms_sign('-signer', $s1->{crt}, '-inkey', "$dir/enc.key", '-passin', "file:$dir/pass.txt", '-in', $content, '-out', "$dir/enc3.pem"),
           '-passin file:');
    cmd_ok(cms_sign('-signer', $s1->{crt}, '-inkey', "$dir/enc.key", '-pass', 'stdin', '-out', "$dir/enc4.pem", '-in', $content,
                    { stdin => "s3cret\n" }), '-pass stdin');
    $r = cms_verify($root, "$dir/enc4.pem");
    verified($r, 'signed with the decrypted key: verifies');
    cmd_fails(cms_sign('-signer', $s1->{crt}, '-inkey', "$dir/enc.key", '-pass', 'pass:wrong', '-in', $content, '-out', "$dir/x.pem"),
              qr/cannot read a private key from .*enc\.key \(wrong passphrase\?\)/, 'wrong passphrase: exit 1', status => 1);
    cmd_fails(cms_sign('-signer', $s1->{crt}, '-inkey', "$dir/enc.key", '-pass', 'env:KLMS_NO_SUCH_VAR', '-in', $content),
              qr/environment variable KLMS_NO_SUCH_VAR is not set/, 'unset -pass env: exit 1', status => 1);

    # Loading the provider with -provider-path/-provider instead of the configuration.
    $r = cms_sign('-provider-path', $ENV{KLMS_PROVIDER_DIR}, '-provider', 'klms', '-provider', 'default',
                  '-signer', $s1->{crt}, '-inkey', $s1->{key}, '-in', $content, '-out', "$dir/prov.pem", \%no_provider);
    cmd_ok($r, '-provider-path/-provider without a configuration');
    $r = cms_verify($root, "$dir/prov.pem");
    verified($r, '... verifies');
    cmd_fails(cms_sign('-signer', $s1->{crt}, '-inkey', $s1->{key}, '-in', $content, '-out', "$dir/x.pem", \%no_provider),
              qr/cannot read a private key/, 'without the provider the key cannot be read: exit 1', status => 1);
    cmd_fails(cms_sign('-provider', 'no-such-provider', '-signer', $s1->{crt}, '-inkey', $s1->{key}, '-in', $content),
              qr/cannot load provider no-such-provider/, 'an unknown provider: exit 1', status => 1);

    # Signing refusals of the provider come through: a seeded key, an exhausted key.
    cmd_ok(hss_genpkey("$dir/seeded.key", 'height:5', 'hexseed:' . '42' x 32, "state-file:$dir/seeded.state"), 'a seeded key');
    cmd_ok(openssl('req', '-new', '-x509', '-key', "$dir/seeded.key", '-subj', '/CN=seeded', '-out', "$dir/seeded.crt",
                   { env => { KLMS_ALLOW_SEEDED_KEYS => 1 } }), 'its certificate');
    cmd_fails(cms_sign('-signer', "$dir/seeded.crt", '-inkey', "$dir/seeded.key", '-in', $content, '-out', "$dir/x.pem"),
              qr/signing failed.*seeded key refused/s, 'a seeded key is refused: exit 1', status => 1);
    cmd_ok(cms_sign('-signer', "$dir/seeded.crt", '-inkey', "$dir/seeded.key", '-in', $content, '-out', "$dir/seeded.pem",
                    { env => { KLMS_ALLOW_SEEDED_KEYS => 1 } }), '... unless KLMS_ALLOW_SEEDED_KEYS=1');
    $r = cms_verify("$dir/seeded.crt", "$dir/seeded.pem");
    verified($r, 'the self-signed signer verifies as its own root');
    # The last 3 wait for the acknowledgement (docs/state.md §5).
    my $id = (openssl('pkey', '-in', "$dir/seeded.key", '-text', '-noout')->{out} =~ /^key id: ([0-9a-f]{64})$/m)[0] // '';
    cmd_ok(run_cmd([tool('klms-state'), 'acknowledge', '--key-id', $id, "$dir/seeded.state"]), 'klms-state acknowledge --key-id');
    cmd_ok(openssl('pkeyutl', '-sign', '-rawin', '-inkey', "$dir/seeded.key", '-in', $content, '-out', "$dir/burn.sig",
                   '-pkeyopt', 'reserve:30', { env => { KLMS_ALLOW_SEEDED_KEYS => 1 } }), 'use up the seeded key (H5)');
    is(next_index("$dir/seeded.key"), 32, 'no index left');
    cmd_fails(cms_sign('-signer', "$dir/seeded.crt", '-inkey', "$dir/seeded.key", '-in', $content, '-out', "$dir/x.pem",
                       { env => { KLMS_ALLOW_SEEDED_KEYS => 1 } }),
              qr/signing failed.*key exhausted: no signatures left/s, 'an exhausted key: exit 1', status => 1);
}

done_testing();
