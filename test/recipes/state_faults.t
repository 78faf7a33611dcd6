# Write and fsync failures of the state file (docs/state.md §2), injected into the real openssl binary
# and into the EVP signer with the LD_PRELOAD shim test/support/fault_shim.c (KLMS_FAULT=<op>:<n>).
# A failed durable write means: non-zero exit, the provider's "state file write failed", no
# signature; the state file stays consistent, the failed reservation is never handed out later, and
# a normal run signs again. In sanitizer builds the sanitizer runtime comes first in LD_PRELOAD.
use strict;
use warnings;
use Test::More;
use KlmsTest;

my $shim = tool('klms_fault_shim');
my $signer = tool('klms-evp-signer');
my $dir = private_dir();
mkdir "$dir/state", 0700 or die;
$ENV{KLMS_STATE_DIR} = "$dir/state";
my $msg = "$dir/msg.txt";
spew($msg, "fault injection\n");

my $preload = join ':', grep { defined && length } $ENV{KLMS_SANITIZER_PRELOAD}, $shim;
sub fault_env { return { LD_PRELOAD => $preload, KLMS_FAULT => $_[0], KLMS_FAULT_VERBOSE => '1' } }

sub genkey {
    my ($name, %o) = @_;
    my $key = "$dir/$name.pem";
    my $state = "$dir/state/$name.state";
    my $r = openssl_st('genpkey', '-algorithm', 'HSS-LMS', '-pkeyopt', 'lms:LMS_SHA256_M32_H10',
                    '-pkeyopt', 'ots:LMOTS_SHA256_N32_W4', '-pkeyopt', "state-file:$state", '-out', $key,
                    { env => $o{env} // {} });
    return { r => $r, key => $key, state => $state };
}

my $signo = 0;
sub sign {
    my ($key, %o) = @_;
    return state_sign(%o, key => $key, in => $msg, out => "$dir/sig" . ++$signo . '.bin');
}

sub verifies { my ($key, $sigfile) = @_; return state_verifies($key, $msg, $sigfile) }

my $k = genkey('main');
is($k->{r}{status}, 0, 'genpkey') or BAIL_OUT($k->{r}{err});
my %used;  # every index a signature was made with
my $first = sign($k->{key});
is($first->{q}, 0, 'a first signature without faults');
$used{0} = 1;

# The shim really fails calls in openssl (sanity: a rule that matches nothing lets signing through).
my $noop = sign($k->{key}, env => fault_env('fdatasync:1'));
is($noop->{status}, 0, 'fdatasync:1 (the store uses fsync) does not fail signing') or diag $noop->{err};
$used{ $noop->{q} }++ if defined $noop->{q};

for my $case (['fsync:1', 'first fsync fails (EIO)'], ['write:1', 'first write fails (EIO)'],
              ['pwrite:1', 'first pwrite fails (EIO)'], ['write:1:ENOSPC', 'disk full (ENOSPC)'],
              ['fsync:1:EIO', 'fsync EIO, plain EVP_PKEY_sign', 1], ['write:1:EDQUOT', 'quota (EDQUOT)'],
              ['fsync:1+', 'every fsync fails']) {
    my ($rule, $name, $plain) = @$case;
    subtest "KLMS_FAULT=$rule: $name" => sub {
        my $before = state_show($k->{state});
        my $s = sign($k->{key}, env => fault_env($rule), plain => $plain);
        isnt($s->{status}, 0, 'openssl pkeyutl -sign fails');
        like($s->{err}, qr/klms_fault_shim: failing (p?write|pwrite64|fsync)/, 'the fault was injected');
        like($s->{err}, qr/state file write failed/, 'the provider says the state file write failed');
        is(length $s->{sig}, 0, 'no signature written');
        my $after = state_show($k->{state});
        is($after->{status}, 0, 'the state file is still readable and consistent') or diag $after->{err};
        cmp_ok($after->{next}, '>=', $before->{next}, 'next never goes back');
        cmp_ok($after->{next}, '<=', $before->{next} + 1, 'and moved by at most the failed reservation');
        my $slots = state_slots($k->{state});
        is(scalar(grep { $_->{valid} } @{ $slots->{slots} }), 2, 'both slots valid');
        my $ok = sign($k->{key});
        is($ok->{status}, 0, 'a normal run signs again') or diag $ok->{err};
        ok(!$used{ $ok->{q} }++, "with an unused index ($ok->{q})");
        cmp_ok($ok->{q}, '>=', $before->{next}, 'not below the state before the failure');
        ok(verifies($k->{key}, $ok->{file}), 'which verifies');
    };
}

subtest 'in one process: the failed reservation poisons the handle, a reopen goes on without reuse' => sub {
    my $before = state_show($k->{state})->{next};
    my $r = run_cmd_st([$signer, '--key', $k->{key}, '--in', $msg, '--count', '4', '--keep-going', '--print-q', '--verify'],
                    env => fault_env('fsync:4'));  # the second reservation's second block write
    isnt($r->{status}, 0, 'the signer reports the failure');
    like($r->{err}, qr/state file write failed/, 'state file write failed');
    my @lines = split /\n/, $r->{out};
    is(scalar(grep { /^fail 0 1$/ } @lines), 1, 'the second signature failed');
    my @q = grep { /^\d+$/ } @lines;
    is(scalar @q, 3, 'the other three were made');
    is($q[0], $before, 'first at the old next');
    cmp_ok($q[1], '>', $before + 1, 'the failed reservation\'s index was skipped, not reused');
    ok(!$used{$_}++, "index $_ unused before") for @q;
    my $after = state_show($k->{state});
    is($after->{next}, $q[-1] + 1, 'state next follows the last signature');

    # A failed pwrite (nothing reached the file) in a process with a reservation of 5 and 2 threads.
    $before = $after->{next};
    $r = run_cmd_st([$signer, '--key', $k->{key}, '--in', $msg, '--count', '6', '--threads', '2', '--reserve', '5',
                  '--keep-going', '--print-q'], env => fault_env('pwrite:2'));
    @q = grep { /^\d+$/ } split /\n/, $r->{out};
    my %seen;
    is(scalar(grep { $seen{$_}++ } @q), 0, 'no index twice among the threads');
    ok(!$used{$_}++, "index $_ unused before") for @q;
    like($r->{err}, qr/state file (write failed|unusable after a failed write)/, 'the failure is reported');
    cmp_ok(state_show($k->{state})->{next}, '>', (sort { $b <=> $a } @q)[0], 'next beyond every index used');
};

subtest 'genpkey: a failed write at creation leaves no state file behind' => sub {
    for my $rule ('fsync:1', 'write:1') {
        my $g = genkey("gen-$rule" =~ s/[:]/-/gr, env => fault_env($rule));
        isnt($g->{r}{status}, 0, "genpkey with KLMS_FAULT=$rule fails");
        like($g->{r}{err}, qr/state file write failed/, '... saying the state file write failed');
        ok(!-e $g->{state}, 'the half-made state file was removed');
    }
    my $g = genkey('gen-retry');
    is($g->{r}{status}, 0, 'a retry without faults works');
};

my $final = state_show($k->{state});
my @all = sort { $a <=> $b } keys %used;
ok($final->{next} > $all[-1], "the state ($final->{next}) is beyond every index used (max $all[-1])");

done_testing();
