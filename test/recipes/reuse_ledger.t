# The reuse ledger's own test: test/support/Ledger.pm and ledger.pl must find a planted,
# real reuse and nothing else. A seeded key made twice from one SEED and I, each time with a fresh
# state file, signs index 0 twice: two different messages under one one-time key, both verifying.
use strict;
use warnings;
use Test::More;
use KlmsTest;
use ReuseTest;

my $dir = private_dir();
my $ledger_pl = "$ENV{KLMS_SOURCE_DIR}/test/support/ledger.pl";
my $seed = '5a' x 32;
my $ident = 'c3' x 16;
my %env = (env => seeded_env());

sub twin_keys {
    my ($name, $lms, $ots) = @_;
    my @k;
    for my $twin (1, 2) {
        my $key = "$dir/$name-$twin.pem";
        my $r = hss_key($key, "$dir/$name-$twin.state", $lms, $ots, "hexseed:$seed", "hexidentifier:$ident", { env => seeded_env() });
        die "genpkey $name: $r->{err}" if $r->{status} != 0;
        push @k, $key;
    }
    return @k;
}

my $n = 0;
sub sign_file {
    my ($key, $text) = @_;
    my $i = ++$n;
    spew("$dir/m$i.msg", $text);
    my $r = openssl_limited(60, 'pkeyutl', '-sign', '-rawin', '-inkey', $key, '-in', "$dir/m$i.msg", '-out', "$dir/m$i.sig", \%env);
    die "sign: $r->{err}" if $r->{status} != 0;
    return ("$dir/m$i.sig", "$dir/m$i.msg");
}
sub run_ledger { return run_limited(300, ['perl', $ledger_pl, @_]) }

for my $shape (['L1', 'LMS_SHA256_M32_H5', 'LMOTS_SHA256_N32_W4'],
               ['L2', 'LMS_SHA256_M32_H5,LMS_SHA256_M32_H5', 'LMOTS_SHA256_N32_W2']) {
    my ($name, $lms, $ots) = @$shape;
    subtest "$name: a seeded key made twice signs index 0 twice" => sub {
        my ($k1, $k2) = twin_keys($name, $lms, $ots);
        my $pub = pubout($k1);
        is(slurp(pubout($k2, out => "$dir/$name-2.pub.pem")), slurp($pub), 'the twins share one public key');
        my ($s1, $m1) = sign_file($k1, "first message of $name\n");
        my ($s2, $m2) = sign_file($k1, "second message of $name\n");
        my ($s3, $m3) = sign_file($k2, "a third message, from the twin\n");   # index 0 again
        my ($s4, $m4) = sign_file($k2, "second message of $name\n");          # index 1, same message as s2

        my $honest = run_ledger('--pub', $pub, '--verify', "$s1=$m1", "$s2=$m2");
        is($honest->{status}, 0, 'two signatures of one key: no reuse') or diag "$honest->{out}$honest->{err}";
        like($honest->{out}, qr/ledger: signatures=2 rejected=0 pairs=\d+ reuses=0 max_q=1/, 'both counted, q up to 1');

        my $same = run_ledger('--pub', $pub, '--verify', "$s2=$m2", "$s4=$m4");
        is($same->{status}, 0, 'the same message at the same index twice (the same signature) is no reuse')
            or diag $same->{out};

        my $planted = run_ledger('--pub', $pub, '--verify', "$s1=$m1", "$s2=$m2", "$s3=$m3");
        is($planted->{status}, 1, 'the planted reuse is found (exit 1)');
        like($planted->{out}, qr/REUSE: level \Q@{[$name eq 'L1' ? 0 : 1]}\E tree [0-9a-f]+\.\. q=0 signed two different messages: \[\Q$s1\E\].*\[\Q$s3\E\]/,
             'and named: level, tree, q and both signature files') or diag $planted->{out};
        like($planted->{out}, qr/reuses=1 /, 'exactly one one-time key signed twice');

        # The module directly, with the real verifier, the same verdict.
        my $l = reuse_ledger($pub);
        $l->add(sig => slurp($_->[0]), msg => slurp($_->[1]), label => $_->[0]) for [$s1, $m1], [$s3, $m3];
        is(scalar $l->reuses, 1, 'Ledger.pm finds it too');

        # A "signature" that does not verify is not counted: the second message with the first
        # signature claims index 0 for another message, which only --verify can tell is false.
        my $forged = run_ledger('--pub', $pub, "$s1=$m1", "$s1=$m2");
        is($forged->{status}, 1, 'without --verify a mismatched signature looks like a reuse');
        my $checked = run_ledger('--pub', $pub, '--verify', "$s1=$m1", "$s1=$m2");
        is($checked->{status}, 0, 'with --verify it is not counted') or diag $checked->{out};
        like($checked->{out}, qr/signatures=1 rejected=1/, 'and reported as rejected');
        my $coll = run_ledger('--pub', $pub, '--verify-collisions', "$s1=$m1", "$s1=$m2", "$s3=$m3");
        is($coll->{status}, 1, '--verify-collisions: the false one dropped, the real reuse kept');
        like($coll->{out}, qr/signatures=2 rejected=1 pairs=\d+ reuses=1/, 'counts') or diag $coll->{out};

        # Malformed input: truncated, and a signature of another shape.
        spew("$dir/$name-trunc.sig", substr(slurp($s1), 0, -1));
        my $trunc = run_ledger('--pub', $pub, "$dir/$name-trunc.sig=$m1");
        like($trunc->{out}, qr/signatures=0 rejected=1/, 'a truncated signature is rejected, not counted');

        if ($name eq 'L2') {
            # An upper-level reuse: the top leaf 0 "signs" another child key. Made by changing the
            # child key's T inside a copy of a real signature: only the parser sees it (no --verify).
            my $sig = slurp($s2);
            my $l2 = Ledger->new(pub => Ledger::public_key_bytes(slurp($pub)));
            my ($levels) = $l2->parse($sig, slurp($m2));
            ok($levels && @$levels == 2, 'an L = 2 signature parses into two levels');
            my $child = $levels->[1]{tree};
            my $pos = index($sig, $child);
            ok($pos > 0, 'the child public key is inside the signature');
            my $bad = $sig;
            substr($bad, $pos + length($child) - 1, 1) = chr(ord(substr($bad, $pos + length($child) - 1, 1)) ^ 1);
            spew("$dir/L2-child.sig", $bad);
            my $top = run_ledger('--pub', $pub, "$s2=$m2", "$dir/L2-child.sig=$m2");
            is($top->{status}, 1, 'a top leaf signing two child keys is found');
            like($top->{out}, qr/REUSE: level 0 tree \S+ q=0 signed two different child public keys/, 'at level 0')
                or diag $top->{out};
        }
    };
}

done_testing();
