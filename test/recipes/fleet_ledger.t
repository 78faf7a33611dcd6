# The fleet recipes' ledger and driver (test/recipes/lib/FleetTest.pm) checked against real
# signatures of the unwitnessed CLI path (openssl pkeyutl -sign with a state file): signatures of
# one state file have distinct indices; a copied (and adopted) state file signs an index again and
# the ledger names it; run_fleet runs hosts in parallel, kills the seeded picks, and its ledger
# tells a fleet sharing one state file (no duplicate) from a fleet of copies (duplicates: the reason
# a fleet needs a witness).
use strict;
use warnings;
use Test::More;
use File::Copy qw(copy);
use Time::HiRes qw(time);
use KlmsTest;
use ReuseTest;
use FleetTest;

my $dir = private_dir();
my $state_tool = tool('klms-state');
my $n = 0;

sub new_key {
    my ($name) = @_;
    my $k = { key => "$dir/$name.pem", state => "$dir/$name.state" };
    my $r = hss_key($k->{key}, $k->{state}, 'LMS_SHA256_M32_H10', 'LMOTS_SHA256_N32_W4');
    die "genpkey: $r->{err}" if $r->{status} != 0;
    $k->{pub} = pubout($k->{key});
    return $k;
}
# argv signing a new message with key k (and state file `state` when given): (argv, sig, msg).
sub sign_argv {
    my ($k, $state, $tag) = @_;
    my $i = ++$n;
    my $msg = "$dir/m$i.msg";
    spew($msg, "fleet ledger message $i ($tag)\n");
    return ([$ENV{OPENSSL_BIN} // 'openssl', 'pkeyutl', '-sign', '-rawin', '-inkey', $k->{key}, '-in', $msg,
             '-out', "$msg.sig", ($state ? ('-pkeyopt', "state-file:$state") : ())], "$msg.sig", $msg);
}
sub sign_now {
    my ($k, $state, $tag) = @_;
    my ($argv, $sig, $msg) = sign_argv($k, $state, $tag);
    my $r = run_limited(120, $argv);
    die "sign ($tag): $r->{err}" if $r->{status} != 0;
    return [$sig, $msg, $tag];
}
# A copy of `state` adopted as a new file (klms-state adopt): what an operator who cloned a
# signing host's disk gets. The original is left in place: that is the mistake.
sub adopted_copy {
    my ($state, $to) = @_;
    copy($state, $to) or die "copy: $!";
    chmod 0600, $to;
    my $r = run_limited(120, [$state_tool, 'adopt', '--yes-i-destroyed-the-original', $to]);
    die "adopt: $r->{err}" if $r->{status} != 0;
    return $to;
}

subtest 'the ledger over signatures of the unwitnessed CLI' => sub {
    my $k = new_key('unit');
    my $s1 = sign_now($k, undef, 'first');
    my $copy = "$dir/unit-copy.state";
    copy($k->{state}, $copy) or die "copy: $!";    # taken while next = 1
    my @honest = ($s1, sign_now($k, undef, 'second'), sign_now($k, undef, 'third'));
    my $l = fleet_ledger(pub => $k->{pub}, sigs => \@honest);
    is($l->{signatures}, 3, 'three signatures counted (each verified by openssl)') or diag $l->{summary};
    is_deeply([sort keys %{ $l->{by_index} }], [0, 1, 2], 'at indices 0, 1, 2');
    is($l->{duplicate_indices}, 0, 'no duplicate');
    fleet_ledger_ok($l, 'one state file');

    chmod 0600, $copy;
    my $r = run_limited(120, [$state_tool, 'adopt', '--yes-i-destroyed-the-original', $copy]);
    is($r->{status}, 0, 'the old copy adopted') or diag $r->{err};
    my $again = sign_now($k, $copy, 'from the copy');
    $l = fleet_ledger(pub => $k->{pub}, sigs => [@honest, $again]);
    is($l->{signatures}, 4, 'four signatures counted') or diag $l->{summary};
    is($l->{duplicate_indices}, 1, 'one index signed twice');
    is($l->{duplicate_signatures}, 1, 'by one extra signature');
    like($l->{duplicates}[0] // '', qr/^index 1 \(q 1\) signed 2 times: second, from the copy$/, 'named: index and both signatures')
        or diag explain $l->{duplicates};
    is(scalar @{ $l->{reuses} }, 1, 'and Ledger.pm calls it a one-time key reuse (two different messages)');

    # A signature cut short (a signer killed while writing): its index counts, it is not a signature.
    my $cut = "$dir/cut.sig";
    spew($cut, substr(slurp($honest[2][0]), 0, 100));
    $l = fleet_ledger(pub => $k->{pub}, sigs => [@honest[0, 1], [$cut, $honest[2][1], 'cut'], ["$dir/none.sig", $honest[0][1], 'none']]);
    is($l->{signatures}, 2, 'the cut signature is not counted');
    is_deeply($l->{partial}, [{ label => 'cut', q => 2 }], 'it is listed as partial, with its index');
    is($l->{missing}, 1, 'a signature file that was never written is counted as missing');

    # A signature over another message does not verify: rejected, not a duplicate.
    $l = fleet_ledger(pub => $k->{pub}, sigs => [@honest, [$honest[0][0], $honest[1][1], 'mismatched']]);
    is($l->{duplicate_indices}, 0, 'a signature that does not verify makes no duplicate');
    is(scalar @{ $l->{rejected} }, 1, 'it is rejected') or diag $l->{summary};
};

subtest 'run_fleet: four hosts sharing one state file, two signers killed' => sub {
    my $k = new_key('shared');
    my $f = run_fleet(hosts => 4, per_host => 3, dir => $dir, kills => 2, seed => 20261202, kill_after_ms => [0, 20],
                      timeout => 300, command_timeout => 120,
                      command => sub {
                          my ($h, $s) = @_;
                          my ($argv, $sig, $msg) = sign_argv($k, undef, "host $h seq $s");
                          return { argv => $argv, sig => $sig, msg => $msg };
                      });
    is(scalar @{ $f->{runs} }, 12, 'twelve commands ran');
    is($f->{hung}, 0, 'none hung');
    # A signer that finished before its planned kill time is not killed (a signature takes ~50 ms).
    my @killed = grep { $_->{killed} } @{ $f->{runs} };
    cmp_ok(scalar @killed, '>=', 1, 'signers were killed') or diag explain $f->{killed};
    cmp_ok(scalar @killed, '<=', 2, 'no more than the two planned');
    is(scalar(grep { $_->{status} == 137 } @killed), scalar @killed, 'each died of the SIGKILL (status 137)');
    my @bad = grep { !$_->{killed} && $_->{status} != 0 } @{ $f->{runs} };
    is(scalar @bad, 0, 'every signer not killed succeeded') or diag join "\n", map { "h$_->{host}/s$_->{seq}: $_->{err_text}" } @bad;
    my $l = fleet_ledger(pub => $k->{pub}, sigs => fleet_sigs($f));
    is($l->{signatures}, scalar(grep { $_->{status} == 0 } @{ $f->{runs} }), 'every signer that finished left a valid signature')
        or diag $l->{summary};
    fleet_ledger_ok($l, 'one shared state file');
    my @same = map { $_->{seed} } run_fleet(hosts => 1, per_host => 1, seed => 7, kills => 0, dir => $dir,
                                            command => sub { return { argv => ['true'] } });
    is($same[0], 7, 'the seed given is the seed reported');
};

subtest 'run_fleet: three hosts on copies of one state file sign the same indices' => sub {
    my $k = new_key('copies');
    my @states = map { adopted_copy($k->{state}, "$dir/copies-host$_.state") } 1 .. 3;
    my $f = run_fleet(hosts => 3, per_host => 2, dir => $dir, seed => 1, timeout => 300,
                      command => sub {
                          my ($h, $s) = @_;
                          my ($argv, $sig, $msg) = sign_argv($k, $states[$h - 1], "host $h seq $s");
                          return { argv => $argv, sig => $sig, msg => $msg };
                      });
    is(scalar(grep { $_->{status} == 0 } @{ $f->{runs} }), 6, 'all six signed') or diag explain [map { $_->{err_text} } @{ $f->{runs} }];
    my $l = fleet_ledger(pub => $k->{pub}, sigs => fleet_sigs($f));
    is($l->{signatures}, 6, 'six signatures') or diag $l->{summary};
    is($l->{duplicate_indices}, 2, 'indices 0 and 1 signed by every host') or diag explain $l->{duplicates};
    is($l->{duplicate_signatures}, 4, 'four signatures too many');
    is(scalar @{ $l->{reuses} }, 4, 'four one-time key reuses');
    like(join("\n", @{ $l->{duplicates} }), qr/^index 0 \(q 0\) signed 3 times: h\d\/s1, h\d\/s1, h\d\/s1\nindex 1 \(q 1\) signed 3 times/,
         'listed by index with the hosts that signed it');
};

subtest 'run_fleet is bounded: hung commands are killed, nothing starts past the deadline' => sub {
    my $t0 = time;
    my $f = run_fleet(hosts => 2, per_host => 3, dir => $dir, seed => 3, command_timeout => 1, timeout => 1.5,
                      command => sub { return { argv => ['sleep', '30'] } });
    my $secs = time - $t0;
    cmp_ok($secs, '<', 10, sprintf('returned after %.1f s, not 30', $secs));
    is(scalar(grep { $_->{hung} && $_->{status} == 137 } @{ $f->{runs} }), scalar @{ $f->{runs} }, 'every command that ran was killed as hung');
    cmp_ok($f->{hung}, '>=', 2, "at least one per host ($f->{hung})");
    cmp_ok($f->{not_started}, '>=', 1, "and the deadline left some unstarted ($f->{not_started})");
    is($f->{hung} + $f->{not_started}, 6, 'all six accounted for');
};

done_testing();
