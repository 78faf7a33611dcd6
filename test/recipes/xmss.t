# XMSS, XMSS^MT and K-XMSS through the real openssl binary (docs/xmss.md "In the provider"): the CLI
# sequence genpkey -> pkey -text -> pkeyutl -sign/-verify -> req -x509 -> x509 -> verify for one set of
# each kind (h = 10 trees: XMSS-SHA2_10_256, XMSSMT-SHA2_20/4_256, K-XMSS-LSH256_10_256); the exact DER
# of RFC 9802's AlgorithmIdentifiers; signatures in new processes from the tree caches (their files,
# a damaged and a foreign cache rebuilt, the same bytes signed); XMSS^MT across its lower trees; the
# state file's refusals for XMSS keys (seeded key, copied state, exhaustion acknowledgement); what is
# refused by name (SHA-512 and SHAKE128 sets, the other scheme's sets, HSS parameters, CMS) and
# klms-raw's raw keys. Cost: about 15 s (three h = 10 trees, ~80 openssl processes).
use strict;
use warnings;
use Test::More;
use File::Copy qw(copy);
use KlmsTest qw(:DEFAULT :cli);

my $dir = private_dir();
my $raw_tool = tool('klms-raw');
my $state_tool = tool('klms-state');
spew("$dir/msg", "XMSS signs the message itself.\n");
spew("$dir/other", "XMSS signs the message itself!\n");

sub field { my ($text, $name) = @_; return $text =~ /^\Q$name\E: (.*)$/m ? $1 : undef }
sub key_text { return openssl('pkey', '-in', $_[0], '-noout', '-text')->{out} }
sub raw_index {
    my ($scheme, $sig) = @_;
    my $r = run_cmd([$raw_tool, 'sig-index', '--scheme', $scheme, $sig]);
    return $r->{out} =~ /^index: (\d+)$/m ? $1 : undef;
}
sub sign_ok {
    my ($key, $in, $out, $what) = @_;
    return cmd_ok(openssl('pkeyutl', '-sign', '-rawin', '-inkey', $key, '-in', $in, '-out', $out), $what);
}

my @sets = (
    { name => 'XMSS-SHA2_10_256', alg => 'XMSS', scheme => 'xmss', sig => 2500, max => 1024, oid => '22',
      title => 'XMSS', type => '0x00000001' },
    { name => 'XMSSMT-SHA2_20/4_256', alg => 'XMSSMT', scheme => 'xmssmt', sig => 9251, max => 1048576, oid => '23',
      title => 'XMSS^MT', type => '0x00000002', layers => 4 },
    { name => 'K-XMSS-LSH256_10_256', alg => 'K-XMSS-LSH256', scheme => 'xmss', sig => 2500, max => 1024, oid => '22',
      title => 'XMSS', type => '0xe001040a' },
);

for my $set (@sets) {
    my $tag = $set->{name} =~ s{[/]}{-}gr;
    my ($key, $pub, $state, $crt) = map { "$dir/$tag.$_" } qw(key pub state crt);
    $set->{key} = $key;
    $set->{pub} = $pub;
    $set->{state} = $state;
    subtest "$set->{name}: the CLI sequence" => sub {
        my @params = $set->{alg} eq 'K-XMSS-LSH256' ? () : ('-pkeyopt', "params:$set->{name}");
        cmd_ok(openssl('genpkey', '-algorithm', $set->{alg}, @params, '-pkeyopt', "state-file:$state", '-out', $key),
               'genpkey');
        ok(-s "$state.cache", 'the top tree is cached beside the state file');
        my $text = key_text($key);
        like($text, qr/^\Q$set->{title}\E Private-Key:$/m, 'pkey -text: the scheme');
        is(field($text, 'parameter set'), "$set->{name} (type $set->{type})", 'pkey -text: the set and its type code');
        is(field($text, 'state'), 'ok', 'pkey -text: the state file is fine');
        is(field($text, 'remaining signatures'), $set->{max}, "pkey -text: $set->{max} signatures");
        cmd_ok(openssl('pkey', '-in', $key, '-pubout', '-out', $pub), 'pkey -pubout');
        like(openssl('pkey', '-pubin', '-in', $pub, '-noout', '-text')->{out}, qr/^\Q$set->{title}\E Public-Key:$/m,
             'pkey -pubin -text');
        cmd_ok(openssl('pkey', '-in', $key, '-check', '-noout'), 'pkey -check');
        for my $i (0 .. 1) {
            sign_ok($key, "$dir/msg", "$dir/$tag.$i.sig", "pkeyutl -sign ($i)");
            is(-s "$dir/$tag.$i.sig", $set->{sig}, "signature $i: $set->{sig} bytes");
            is(raw_index($set->{scheme}, "$dir/$tag.$i.sig"), $i, "signature $i used index $i");
            cmd_ok(openssl('pkeyutl', '-verify', '-rawin', '-pubin', '-inkey', $pub, '-in', "$dir/msg", '-sigfile',
                           "$dir/$tag.$i.sig"), "pkeyutl -verify ($i)", qr/Signature Verified Successfully/);
        }
        cmd_fails(openssl('pkeyutl', '-verify', '-rawin', '-pubin', '-inkey', $pub, '-in', "$dir/other", '-sigfile',
                          "$dir/$tag.0.sig"), qr/verif/i, 'another message is refused', any => 1);
        cmd_ok(openssl('req', '-new', '-x509', '-key', $key, '-subj', "/CN=$tag", '-days', 30,
                       '-addext', 'keyUsage=critical,keyCertSign,cRLSign', '-out', $crt), 'req -new -x509');
        my $x = openssl('x509', '-in', $crt, '-noout', '-text');
        cmd_ok($x, 'x509 -text');
        like($x->{out}, qr/Signature Algorithm: \Q$set->{alg}\E|Signature Algorithm: (XMSS|XMSSMT)$/m, 'x509 -text: the signature algorithm');
        cmd_ok(openssl('verify', '-CAfile', $crt, $crt), 'verify -CAfile', qr/: OK/);
        # RFC 9802: AlgorithmIdentifier { id-alg-xmss(mt)-hashsig }, parameters absent, in both places.
        my ($cert) = der_items(pem_body(slurp($crt)));
        my ($tbs, $alg, $value) = der_items($cert->{content});
        is(tohex($alg->{raw}), "300a06082b060105050706$set->{oid}", 'signatureAlgorithm: 1.3.6.1.5.5.7.6.' . hex($set->{oid}));
        is(length($value->{content}), 1 + $set->{sig}, 'signatureValue: the raw RFC 8391 signature');
        is(field(key_text($key), 'next index'), 3, 'three indices used (two signatures, the certificate)');
    };
}

my ($xmss, $mt, $kx) = @sets;

subtest 'new processes sign from the tree caches; damaged and foreign caches are rebuilt' => sub {
    my $cache = "$xmss->{state}.cache";
    my $size = -s $cache;
    is($size, 8192 + (2**11 - 1) * 32, 'the cache holds every node of the h = 10 tree after an 8 KiB header');
    my $original = slurp($cache);
    # Flip a byte of the node the next signature's path reads first (the sibling of its leaf) and
    # one of the header: signing goes on, the signature is valid (paths are checked against the
    # authenticated root, the header by its MAC), and the cache is rebuilt to the very same bytes.
    my $next = field(key_text($xmss->{key}), 'next index');
    my $sibling = 8192 + (1024 + ($next ^ 1) - 1) * 32;
    for my $case ([$sibling, 'the sibling node of the next leaf'], [40, 'the header (key id)']) {
        my ($offset, $what) = @$case;
        flip_byte($cache, "$cache.flipped", $offset);
        rename "$cache.flipped", $cache or die;
        chmod 0600, $cache;
        my $sig = "$dir/cache-$offset.sig";
        sign_ok($xmss->{key}, "$dir/msg", $sig, "signing with $what of the cache damaged");
        cmd_ok(openssl('pkeyutl', '-verify', '-rawin', '-pubin', '-inkey', $xmss->{pub}, '-in', "$dir/msg", '-sigfile', $sig),
               "the signature made over a damaged cache verifies ($what)", qr/Verified Successfully/);
        ok(slurp($cache) eq $original, "the damaged cache was detected and rebuilt ($what)");
        $next = field(key_text($xmss->{key}), 'next index');
    }
    # Another key's cache under this key's name: refused by its MAC, rebuilt.
    copy("$kx->{state}.cache", $cache) or die;
    chmod 0600, $cache;
    sign_ok($xmss->{key}, "$dir/msg", "$dir/foreign.sig", 'signing over another key\'s cache');
    cmd_ok(openssl('pkeyutl', '-verify', '-rawin', '-pubin', '-inkey', $xmss->{pub}, '-in', "$dir/msg", '-sigfile',
                   "$dir/foreign.sig"), 'that signature verifies', qr/Verified Successfully/);
    cmd_ok(openssl('pkey', '-in', $xmss->{key}, '-check', '-noout'), 'pkey -check accepts the rebuilt cache');
    # A missing cache is rebuilt too, and `pkey -check` refuses a cache that is this key's but names
    # another root: none can be made without the key, so only an edit to the MAC'd root could.
    unlink $cache;
    sign_ok($xmss->{key}, "$dir/msg", "$dir/nocache.sig", 'signing without a cache');
    ok(-s $cache, 'the cache is written again');
};

subtest 'XMSS^MT: lower layers built when first needed, cached with their signed roots' => sub {
    for my $level (2 .. 4) { ok(-s "$mt->{state}.cache.level$level", "layer $level from the top has its cache") }
    # 32 leaves per tree: indices 31 and 32 are the last of the first bottom tree and the first of the next.
    my $r = run_cmd([$state_tool, 'adopt', '--advance', 28, '--yes-i-destroyed-the-original', $mt->{state}]);
    cmd_ok($r, 'klms-state adopt --advance 28 (next index 31)');
    my @sigs;
    for my $i (31 .. 33) {
        my $sig = "$dir/mt.$i.sig";
        sign_ok($mt->{key}, "$dir/msg", $sig, "sign at $i");
        is(raw_index('xmssmt', $sig), $i, "index $i");
        cmd_ok(openssl('pkeyutl', '-verify', '-rawin', '-pubin', '-inkey', $mt->{pub}, '-in', "$dir/msg", '-sigfile', $sig),
               "verifies at $i", qr/Verified Successfully/);
        push @sigs, slurp($sig);
    }
    # The layer-1 part of a signature signs the bottom tree's root: the same within a tree, another across.
    my $part = sub { substr($_[0], 3 + 32 + (67 + 5) * 32, (67 + 5) * 32) };
    isnt($part->($sigs[0]), $part->($sigs[1]), 'a new bottom tree at 32: its root signed anew');
    is($part->($sigs[1]), $part->($sigs[2]), 'the same bottom tree at 32 and 33: the cached signature of its root');
};

subtest 'the state file guards XMSS keys as HSS keys' => sub {
    # Seeded keys sign only with KLMS_ALLOW_SEEDED_KEYS=1 (docs/state.md §13).
    my $seeded = "$dir/seeded.key";
    cmd_ok(openssl('genpkey', '-algorithm', 'XMSS', '-pkeyopt', 'hexseed:' . ('11' x 64), '-pkeyopt', 'hexidentifier:' . ('22' x 32),
                   '-pkeyopt', "state-file:$dir/seeded.state", '-out', $seeded), 'genpkey from a seed');
    like(key_text($seeded), qr/^seeded: yes/m, 'pkey -text: seeded');
    cmd_fails(openssl('pkeyutl', '-sign', '-rawin', '-inkey', $seeded, '-in', "$dir/msg", '-out', "$dir/seeded.sig"),
              qr/seed/i, 'a seeded key does not sign by default');
    cmd_ok(openssl('pkeyutl', '-sign', '-rawin', '-inkey', $seeded, '-in', "$dir/msg", '-out', "$dir/seeded.sig",
                   { env => { KLMS_ALLOW_SEEDED_KEYS => 1 } }), 'it signs with KLMS_ALLOW_SEEDED_KEYS=1');
    # A copied state file is refused.
    copy($kx->{state}, "$dir/copy.state") or die;
    chmod 0600, "$dir/copy.state";
    unlink $kx->{state};
    rename "$dir/copy.state", $kx->{state} or die;
    cmd_fails(openssl('pkeyutl', '-sign', '-rawin', '-inkey', $kx->{key}, '-in', "$dir/msg", '-out', "$dir/copied.sig"),
              qr/copied|restored|moved/i, 'a copied state file does not sign');
    # The exhaustion acknowledgement (docs/state.md §5): the last 100 of 1024 wait for it.
    cmd_ok(run_cmd([$state_tool, 'adopt', '--advance', 1000, '--yes-i-destroyed-the-original', $kx->{state}]),
           'klms-state adopt --advance 1000');
    cmd_fails(openssl('pkeyutl', '-sign', '-rawin', '-inkey', $kx->{key}, '-in', "$dir/msg", '-out', "$dir/late.sig"),
              qr/klms-state acknowledge/, 'the last signatures wait for the acknowledgement');
    my $id = field(key_text($kx->{key}), 'key id');
    cmd_ok(run_cmd([$state_tool, 'acknowledge', '--key-id', $id, $kx->{state}]), 'klms-state acknowledge');
    sign_ok($kx->{key}, "$dir/msg", "$dir/late.sig", 'then the key signs');
    is(raw_index('xmss', "$dir/late.sig"), 1003, 'at index 1003');
    my $show = run_cmd([$state_tool, 'show', '--json', $kx->{state}]);
    cmd_ok($show, 'klms-state show --json on an XMSS state file');
    like($show->{out}, qr/"remaining(_signatures)?"\s*:\s*20\b/, 'it counts 20 left');
};

subtest 'refused by name, with what to do' => sub {
    my @cases = (
        ['XMSS', 'params:XMSS-SHA2_10_512', qr/SP 800-208 does not approve \(SHA-512/, 'a SHA-512 set'],
        ['XMSS', 'params:XMSS-SHAKE_10_256', qr/SP 800-208 does not approve \(SHAKE128/, 'a SHAKE128 set'],
        ['XMSSMT', 'params:XMSSMT-SHAKE_20/2_512', qr/SP 800-208 does not approve/, 'an XMSS^MT SHAKE128 set'],
        ['XMSS', 'params:XMSSMT-SHA2_20/2_256', qr/use -algorithm XMSSMT/, 'an XMSS^MT set for XMSS'],
        ['XMSSMT', 'params:XMSS-SHA2_10_256', qr/use -algorithm XMSS\b/, 'an XMSS set for XMSS^MT'],
        ['K-XMSS-LSH256', 'params:K-XMSS-TDMCHAM_10_256', qr/not a set of K-XMSS-LSH256/, 'another hash for K-XMSS-LSH256'],
        ['XMSS', 'params:XMSS-SHA2_11_256', qr/unknown parameter set 'XMSS-SHA2_11_256'/, 'an unknown set'],
        ['XMSS', 'height:10', qr/XMSS keys take params:NAME/, 'an HSS parameter'],
        ['HSS-LMS', 'params:XMSS-SHA2_10_256', qr/use -algorithm XMSS or XMSSMT/, 'params for HSS-LMS'],
    );
    for my $c (@cases) {
        my ($alg, $opt, $re, $what) = @$c;
        cmd_fails(openssl('genpkey', '-algorithm', $alg, '-pkeyopt', $opt, '-pkeyopt', "state-file:$dir/refused.state",
                          '-out', "$dir/refused.key"), $re, "genpkey: $what");
        ok(!-e "$dir/refused.state", "no state file left for $what");
    }
    my $cms = openssl('cms', '-sign', '-md', 'sha256', '-in', "$dir/msg", '-signer', "$dir/XMSS-SHA2_10_256.crt",
                      '-inkey', $xmss->{key}, '-out', "$dir/x.p7s");
    if (openssl_at_least(3, 5)) {
        # OpenSSL 3.5+ signs CMS with any key that has no default digest through the message API
        # (crypto/cms/cms_sd.c, cms_mdless_signing): -md reaches no provider, nothing tells the provider
        # it is CMS, and the SignedData follows no standard for XMSS (docs/xmss.md "In the provider").
        cmd_ok($cms, 'CMS on OpenSSL 3.5+: the stock cms signs an XMSS key as any key without a default digest (no standard)');
    } else {
        cmd_fails($cms, qr/no CMS encoding/, 'CMS before OpenSSL 3.5: refused with the reason');
    }
    cmd_fails(run_cmd([tool('klms-cms-sign'), '-in', "$dir/msg", '-signer', "$dir/XMSS-SHA2_10_256.crt", '-inkey', $xmss->{key},
                       '-out', "$dir/x.p7s"]), qr/not HSS\/LMS/, 'klms-cms-sign: refused');
};

subtest 'raw RFC 8391 keys: klms-raw both ways, and PKCS#8 with a passphrase' => sub {
    for my $set ($xmss, $mt) {
        my $raw = "$set->{pub}.raw";
        cmd_ok(run_cmd([$raw_tool, 'raw', $set->{pub}, $raw]), "$set->{name}: klms-raw raw");
        is(-s $raw, 68, 'u32 type || root || SEED');
        cmd_ok(run_cmd([$raw_tool, 'spki', '--scheme', $set->{scheme}, $raw, "$raw.pem"]), 'klms-raw spki');
        is(slurp("$raw.pem"), slurp($set->{pub}), 'the same SubjectPublicKeyInfo as openssl pkey -pubout');
    }
    my $enc = "$dir/enc.key";
    cmd_ok(openssl('pkey', '-in', $xmss->{key}, '-aes-256-cbc', '-passout', 'pass:secret', '-out', $enc), 'encrypted PKCS#8');
    is(field(openssl('pkey', '-in', $enc, '-passin', 'pass:secret', '-noout', '-text')->{out}, 'parameter set'),
       'XMSS-SHA2_10_256 (type 0x00000001)', 'decrypts to the same key');
};

done_testing();
