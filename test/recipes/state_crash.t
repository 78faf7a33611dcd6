# SIGKILL at random instants (docs/state.md §1, §2, §7, §8): signers (klms-evp-signer, printing each
# signature's q with one write(2) right after EVP_DigestSign returned, up to 40 signatures each)
# are killed at least 200 times, with reservations of 1 and 7, one-shot and streaming, two at a time on one key. Afterwards
# no q was emitted twice, the state file's next is beyond every emitted q, and the state file was
# readable after every kill.
#
# Budget: an H10 key has 1024 indices; when fewer than ~150 are left the recipe checks that key and
# goes on with a fresh one. The kill window is calibrated from how long a signer takes to produce
# its first signatures, so sanitizer builds (slow start) still get kills while signing.
use strict;
use warnings;
use Test::More;
use POSIX qw(WNOHANG);
use Time::HiRes qw(sleep time);
use KlmsTest;

my $kills_wanted = $ENV{KLMS_CRASH_KILLS} // 200;
# Stop starting new signers after this. The run ends at 200 kills (about 80 s under the
# sanitizers); the limit is only a bound, with room for a machine that also runs the fleet tests'
# etcd clusters (CI's -j2: 199 kills in 80 s was seen there).
my $time_limit = $ENV{KLMS_CRASH_SECONDS} // 240;

my $dir = private_dir();
mkdir "$dir/state", 0700 or die;
$ENV{KLMS_STATE_DIR} = "$dir/state";
my $msg = "$dir/msg.bin";
spew($msg, join('', map { chr(($_ * 37) & 255) } 0 .. 4999));
my $signer = tool('klms-evp-signer');

END { kill_spawned() }  # children still running (a failed or interrupted run)

my @keys;  # { key, state, emitted => { q => "run" }, runs, kills }
sub new_key {
    my $n = @keys;
    my $key = "$dir/key$n.pem";
    my $state = "$dir/state/key$n.state";
    my $r = openssl_st('genpkey', '-algorithm', 'HSS-LMS', '-pkeyopt', 'lms:LMS_SHA256_M32_H10',
                    '-pkeyopt', 'ots:LMOTS_SHA256_N32_W4', '-pkeyopt', "state-file:$state", '-out', $key);
    die "genpkey: $r->{err}" if $r->{status} != 0;
    push @keys, { key => $key, state => $state, emitted => {}, dups => [], runs => 0, kills => 0 };
    return $keys[-1];
}

# Calibration: how long from start to a few signatures.
my $k = new_key();
my $t0 = time;
my $cal = run_cmd_st([$signer, '--key', $k->{key}, '--in', $msg, '--count', '3', '--print-q']);
my $startup = time - $t0;
is($cal->{status}, 0, 'calibration run signs') or diag $cal->{err};
$k->{emitted}{$_} = 'calibration' for grep { /^\d+$/ } split /\n/, $cal->{out};
my $window = $startup * 1.6 + 0.01;
note(sprintf('a signer takes %.0f ms for 3 signatures; killing within %.0f ms of the start', $startup * 1000, $window * 1000));

my ($kills, $runs, $exited, $unreadable, $seq) = (0, 0, 0, 0, 0);
my @unexpected;
my %running;  # pid => { deadline, out, err, key, args }
my $started = time;

sub collect {
    my ($run, $how) = @_;
    my $key = $run->{key};
    my $emitted = 0;
    open my $fh, '<', $run->{out} or return;  # killed before its stdout was even opened
    while (my $line = <$fh>) {
        next unless $line =~ /^(\d+)\n\z/;  # only complete lines were written
        $emitted++;
        if (exists $key->{emitted}{$1}) { push @{ $key->{dups} }, "$1 ($key->{emitted}{$1} and $run->{name})" }
        $key->{emitted}{$1} = $run->{name};
    }
    close $fh;
    unlink $run->{out};
    # Keep kills landing both before and while signing, whatever the machine's load does: widen
    # the window when a run emitted nothing, narrow it when it signed a lot.
    $window *= 1.15 if $emitted == 0 && $window < 10;
    $window *= 0.9 if $emitted > 15 && $window > 0.01;
}

sub start_signer {
    my ($key) = @_;
    my $reserve = rand() < 0.5 ? 1 : 7;
    # At most 40 signatures per signer: with two signers at a time a key never runs out between checks.
    my @args = ('--key', $key->{key}, '--in', $msg, '--count', 1 + int(rand(40)), '--print-q', '--reserve', $reserve,
                '--delay-us', int(rand(2500)));
    push @args, '--streaming', '--chunk', 1 + int(rand(900)) if rand() < 0.4;
    my $name = 'run' . ++$seq . " (reserve $reserve)";
    my $out = "$dir/run$seq.out";
    my $pid = spawn_cmd([ $signer, @args ], out => $out, err => "$dir/run$seq.err");
    $running{$pid} = { deadline => time + rand($window), out => $out, err => "$dir/run$seq.err", key => $key,
                       name => $name };
    $key->{runs}++;
    $runs++;
}

sub check_key_done {
    my ($key) = @_;
    my $info = state_show($key->{state});
    my @q = sort { $a <=> $b } keys %{ $key->{emitted} };
    subtest "key $key->{state}: $key->{runs} signers, $key->{kills} killed, " . scalar(@q) . ' signatures' => sub {
        is($info->{status}, 0, 'state file readable') or diag $info->{err};
        is_deeply($key->{dups}, [], 'no index emitted twice');
        ok(!@q || $info->{next} > $q[-1], "next ($info->{next}) is beyond every emitted q (max " . ($q[-1] // '-') . ')');
        cmp_ok($info->{next}, '>=', scalar @q, 'next >= number of signatures');
        # A normal signer goes on after all that, beyond every emitted index.
        my $r = run_cmd_st([$signer, '--key', $key->{key}, '--in', $msg, '--count', '2', '--print-q', '--verify']);
        is($r->{status}, 0, 'a normal run signs and verifies afterwards') or diag $r->{err};
        my @after = grep { /^\d+$/ } split /\n/, $r->{out};
        is(scalar(grep { exists $key->{emitted}{$_} || $_ < $info->{next} } @after), 0,
           'with indices never emitted before, from next on');
    };
}

while (1) {
    my $want_more = $kills + keys(%running) < $kills_wanted && time - $started < $time_limit;
    if ($want_more && keys(%running) < 2) {
        my $key = $keys[-1];
        my $info = state_show($key->{state});
        if (($info->{remaining} // 0) >= 150) {
            start_signer($key);
        } elsif (!%running) {  # retire the key once nobody signs with it any more
            check_key_done($key);
            start_signer(new_key());
        }
    }
    last if !%running && !$want_more;
    sleep 0.001;
    for my $pid (keys %running) {
        my $run = $running{$pid};
        my $done = waitpid($pid, WNOHANG);
        if ($done == $pid) {  # finished before its kill: fine when it signed all it was asked to
            $exited++;
            push @unexpected, "$run->{name} exited with status $?: " . slurp($run->{err}) if $? != 0;
            $window *= 0.9 if $window > 0.01;
        } elsif (time >= $run->{deadline}) {
            kill 'KILL', $pid;
            waitpid($pid, 0);
            if (($? & 127) == 9) { $kills++; $run->{key}{kills}++ }
            elsif ($? != 0) { $exited++; push @unexpected, "$run->{name} ended with status $? before the kill" }
            else { $exited++ }
        } else {
            next;
        }
        delete $running{$pid};
        collect($run);
        unlink $run->{err};
        # The state file is readable after every kill.
        my $info = state_show($run->{key}{state});
        if ($info->{status} != 0) { $unreadable++; diag "after $run->{name}: $info->{err}" }
    }
}

note(sprintf('%d signers, %d killed, %d finished, %d keys, %.1f s; kill window at the end %.0f ms', $runs, $kills,
             $exited, scalar @keys, time - $started, $window * 1000));
cmp_ok($kills, '>=', $kills_wanted, "at least $kills_wanted SIGKILLs");
is($unreadable, 0, 'the state file was readable after every kill');
is_deeply(\@unexpected, [], 'no signer stopped on an error');
my $total = 0;
$total += keys %{ $_->{emitted} } for @keys;
cmp_ok($total, '>', $kills / 2, "signatures were emitted ($total) - kills did not all land before signing");
check_key_done($_) for $keys[-1];
# Earlier keys were checked when they were retired; check them again (nothing may have changed).
for my $key (@keys[0 .. $#keys - 1]) {
    my $info = state_show($key->{state});
    my @q = sort { $a <=> $b } keys %{ $key->{emitted} };
    ok($info->{status} == 0 && (!@q || $info->{next} > $q[-1]), "retired key $key->{state} still consistent");
}

done_testing();
