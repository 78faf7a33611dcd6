# Crash points enumerated, not sampled. For each operation — genpkey, a signature, a
# reservation (reserve:N), a signature that rebuilds the tree cache, an L = 2 signature, a streaming
# signature (dgst -sign, also with a reservation), `klms-state adopt` and `adopt --advance` — a trace
# run with the fault shim (test/support/fault_shim.c, KLMS_KILL_TRACE) counts its durable steps on
# the state directory (every open, write, pwrite, fsync, fdatasync, fchmod, ftruncate, rename,
# unlink and close of the state file, its directory, its temporaries and the tree cache); then, for
# every step k = 1..N, the operation runs again and is killed by SIGKILL just before step k and, in
# a second run, just after it. After each kill the key signs twice more, and:
#   - every signature that left any process (every signature file written, by the killed process
#     too) goes to the independent ledger (test/support/Ledger.pm, verified by the real openssl):
#     no one-time key signs two different messages, and every one of them verifies;
#   - the signatures after the kill have indices beyond every index that left a process before;
#   - the key signs or refuses with a clear error; nothing hangs (every command runs under timeout).
# The state file's format is not looked at: only refusals, signatures and the ledger.
#
# KLMS_REUSE_CRASH_ROUNDS=R repeats the enumeration R times (scripts/stress-state.sh --size full).
use strict;
use warnings;
use Test::More;
use File::Copy qw(copy);
use KlmsTest;
use ReuseTest;

my $rounds = $ENV{KLMS_REUSE_CRASH_ROUNDS} // 1;
# Kills after a step as well as before it; sanitizer builds (every process several times slower)
# kill after the last step only by default (a kill after step k is otherwise close to one before
# step k + 1): KLMS_REUSE_CRASH_AFTER=all|last.
my $after_mode = $ENV{KLMS_REUSE_CRASH_AFTER} // ($ENV{KLMS_SANITIZER_PRELOAD} ? 'last' : 'all');
sub positions { my ($step, $n) = @_; return ($after_mode eq 'all' || $step == $n) ? (0, 1) : (0) }
my $dir = private_dir();
my $st = "$dir/st";
mkdir $st, 0700 or die;
my $trace = "$dir/trace.txt";  # outside $st: its own writes are no steps
my $state_tool = tool('klms-state');

my %totals = (crash_points => 0, kills => 0, signers => 0, signatures => 0, pairs => 0, reuses => 0);
my @ledgers;
my $seq = 0;
my $g = 0;  # genpkey cases, over every round

sub new_message {
    my ($what) = @_;
    my $i = ++$seq;
    spew("$dir/m$i.msg", "message $i: $what\n" . ('x' x ($i % 97)));
    return ("$dir/m$i.msg", "$dir/m$i.sig");
}

# A key to sign with: { key, state, pub, ledger, lms }.
my $keyno = 0;
sub new_key {
    my ($lms, $ots) = @_;
    my $n = ++$keyno;
    my $key = "$dir/k$n.pem";
    my $r = hss_key($key, "$st/k$n.state", $lms, $ots);
    die "genpkey: $r->{err}" if $r->{status} != 0;
    my $k = { key => $key, state => "$st/k$n.state", lms => $lms, ots => $ots };
    $k->{pub} = pubout($key);
    $k->{ledger} = reuse_ledger($k->{pub});
    push @ledgers, $k->{ledger};
    return $k;
}

# Adds a signature file to the key's ledger when it was written; returns the ledger's answer or undef.
sub record {
    my ($k, $sigfile, $msgfile, $who) = @_;
    return undef unless -e $sigfile && -s $sigfile;
    my $r = $k->{ledger}->add(sig => slurp($sigfile), msg => slurp($msgfile), label => "$who ($sigfile)");
    return $r;
}

# The signing commands: argv for one signature of `msg` into `sig`.
my %signers = (
    sign => sub { my ($k, $m, $s) = @_; ('pkeyutl', '-sign', '-rawin', '-inkey', $k->{key}, '-in', $m, '-out', $s, @{ $k->{override} // [] }) },
    reserve => sub { my ($k, $m, $s) = @_; ('pkeyutl', '-sign', '-rawin', '-inkey', $k->{key}, '-in', $m, '-out', $s, '-pkeyopt', 'reserve:5') },
    stream => sub { my ($k, $m, $s) = @_; ('dgst', '-sign', $k->{key}, '-out', $s, $m) },
    stream_reserve => sub { my ($k, $m, $s) = @_; ('dgst', '-sign', $k->{key}, '-sigopt', 'reserve:4', '-out', $s, $m) },
);

# After a kill: two ordinary signatures; each must sign (or refuse clearly, never hang), with an
# index beyond `floor` (the largest index that left any process before).
sub sign_after {
    my ($k, $floor, $case) = @_;
    my @problems;
    my $last = $floor;
    for my $i (1, 2) {
        my ($m, $s) = new_message("$case, after the kill, $i");
        my $r = openssl_limited(120, $signers{sign}->($k, $m, $s));
        $totals{signers}++;
        if ($r->{hung}) { push @problems, "signature $i after the kill hung"; next }
        if ($r->{status} != 0) {
            push @problems, "signature $i after the kill failed without an error message (status $r->{status})"
                unless $r->{err} =~ /\S/;
            my ($reason) = $r->{err} =~ /error:[0-9A-Fa-f]+:[^:\n]*:[^:\n]*:([^:\n]+)/;
            $k->{refusals}{ $reason // (split /\n/, $r->{err})[0] // '' }++;
            next;
        }
        my $a = record($k, $s, $m, "$case after $i");
        if (!$a || !$a->{ok}) { push @problems, "signature $i after the kill: " . ($a ? $a->{why} : 'no signature file'); next }
        push @problems, "signature $i after the kill has index $a->{q}, not beyond $last (an index that left a process)"
            if defined $last && $a->{q} <= $last;
        $last = $a->{q};
    }
    return @problems;
}

# The steps of one run of `argv` (a trace run, not killed).
sub count_steps {
    my ($argv, $env) = @_;
    unlink $trace;
    my $r = run_limited(300, $argv, env => { %{ $env // {} }, %{ fault_shim_env(KLMS_KILL_MATCH => $st, KLMS_KILL_TRACE => $trace) } });
    my @steps = -e $trace ? split /\n/, slurp($trace) : ();
    unlink $trace;
    return ($r, scalar @steps, @steps);
}

sub killed_run {
    my ($argv, $k_step, $after, $env) = @_;
    $totals{crash_points}++;
    my $r = run_limited(300, $argv, env => { %{ $env // {} }, %{ fault_shim_env(KLMS_KILL_MATCH => $st,
        KLMS_KILL_AT => $k_step . ($after ? ':after' : '')) } });
    $totals{kills}++ if $r->{killed};
    $totals{signers}++;
    return $r;
}

my $openssl = $ENV{OPENSSL_BIN} // 'openssl';

sub problems_ok {
    my ($problems, $name) = @_;
    local $Test::Builder::Level = $Test::Builder::Level + 1;
    ok(!@$problems, $name) or diag join("\n", @$problems);
}

# ---- signing operations ----
for my $round (1 .. $rounds) {
    for my $op (['sign', 'sign', 'LMS_SHA256_M32_H10', 'LMOTS_SHA256_N32_W4'],
                ['sign, tree cache rebuilt', 'sign', 'LMS_SHA256_M32_H10', 'LMOTS_SHA256_N32_W4', 'nocache'],
                ['reserve:5', 'reserve', 'LMS_SHA256_M32_H10', 'LMOTS_SHA256_N32_W4'],
                ['streaming (dgst -sign)', 'stream', 'LMS_SHA256_M32_H10', 'LMOTS_SHA256_N32_W4'],
                ['streaming, reserve:4', 'stream_reserve', 'LMS_SHA256_M32_H10', 'LMOTS_SHA256_N32_W4'],
                ['L = 2 sign, new lower tree each time', 'sign', 'LMS_SHA256_M32_H5,LMS_SHA256_M32_H5', 'LMOTS_SHA256_N32_W4', 'lower'],
                ['L = 2 reserve:5', 'reserve', 'LMS_SHA256_M32_H5,LMS_SHA256_M32_H5', 'LMOTS_SHA256_N32_W4']) {
        my ($name, $how, $lms, $ots, $flag) = @$op;
        subtest "round $round: SIGKILL at every step of: $name" => sub {
            my $k = new_key($lms, $ots);
            my $prepare = sub {
                if (($flag // '') eq 'nocache') { unlink glob("$k->{state}.cache*") }
                if (($flag // '') eq 'lower') {
                    # Reserve up to the end of the current lower tree, so that the next signature starts a new one.
                    my $q = $k->{ledger}->summary->{max_q} // -1;
                    my $left = 32 - (($q + 1) % 32);
                    if ($left != 32) {
                        my ($m, $s) = new_message('filler');
                        openssl_limited(120, 'pkeyutl', '-sign', '-rawin', '-inkey', $k->{key}, '-in', $m, '-out', $s,
                                        '-pkeyopt', "reserve:$left");
                        record($k, $s, $m, 'filler');
                    }
                }
            };
            $prepare->();
            my ($m0, $s0) = new_message("$name trace");
            my ($tr, $n) = count_steps([$openssl, $signers{$how}->($k, $m0, $s0)]);
            is($tr->{status}, 0, "the trace run signs ($n steps)") or diag $tr->{err};
            my $a0 = record($k, $s0, $m0, 'trace run');
            ok($a0 && $a0->{ok}, 'its signature is counted');
            cmp_ok($n, '>=', 3, 'steps were counted');
            my @problems;
            for my $step (1 .. $n) {
                for my $after (positions($step, $n)) {
                    $prepare->();
                    my $case = "step $step " . ($after ? 'after' : 'before');
                    my $floor = $k->{ledger}->summary->{max_q};
                    my ($m, $s) = new_message("$name $case");
                    my $r = killed_run([$openssl, $signers{$how}->($k, $m, $s)], $step, $after);
                    # The number of steps may vary from one index to the next (a new lower tree, a
                    # reservation running out): a run that ended before step k is checked all the same.
                    if (!$r->{killed}) {
                        $k->{completed}++;
                        push @problems, "$case: not killed, status $r->{status} without an error message"
                            if $r->{status} != 0 && $r->{err} !~ /\S/;
                        push @problems, "$case: hung" if $r->{hung};
                    }
                    # A killed process may leave a signature file cut short (openssl's output buffer
                    # flushed in part): its index left the process all the same.
                    my $partial = -s $s ? $k->{ledger}->prefix_q(slurp($s)) : undef;
                    my $a = record($k, $s, $m, "killed at $case");
                    if ($a && !$a->{ok}) {
                        push @problems, "$case: the killed process left a signature that $a->{why}" unless $a->{why} =~ /truncated/;
                        $k->{partial}++;
                        $k->{ledger}{rejected}--;  # counted below, apart
                    }
                    my $left = $a && $a->{ok} ? $a->{q} : $partial;
                    $floor = $left if defined $left && (!defined $floor || $left > $floor);
                    push @problems, map { "$case: $_" } sign_after($k, $floor, "$name $case");
                }
            }
            problems_ok(\@problems, "after every kill at its $n steps the key went on beyond every index that left a process");
            is($k->{ledger}->summary->{rejected}, 0, 'every complete signature that left a process verifies');
            note("$k->{completed} runs ended before their step k (fewer steps at that index)") if $k->{completed};
            note("$k->{partial} killed processes left a signature cut short (their index counts as used)") if $k->{partial};
            ledger_ok($k->{ledger}, $name);
            note("refused after a kill: $_ ($k->{refusals}{$_} times)") for sort keys %{ $k->{refusals} // {} };
        };
    }

    # ---- klms-state adopt (and --advance) of a copied state file ----
    for my $advance (0, 3) {
        my $name = $advance ? "klms-state adopt --advance $advance" : 'klms-state adopt';
        subtest "round $round: SIGKILL at every step of: $name" => sub {
            my $k = new_key('LMS_SHA256_M32_H10', 'LMOTS_SHA256_N32_W4');
            my $gen = 0;
            my $current = $k->{state};
            # Copy the state file to a new name (a new inode: refused as copied) and destroy the original.
            my $move = sub {
                my $to = "$st/moved-$keyno-" . ++$gen . '.state';
                copy($current, $to) or die "copy: $!";
                chmod 0600, $to;
                unlink $current, glob("$current.cache*");
                $current = $to;
                $k->{override} = ['-pkeyopt', "state-file:$to"];
            };
            my @adopt = ($state_tool, 'adopt', ($advance ? ('--advance', $advance) : ()), '--yes-i-destroyed-the-original');
            my ($m, $s) = new_message('before the first move');
            openssl_limited(120, $signers{sign}->($k, $m, $s));
            record($k, $s, $m, 'first');
            $move->();
            my $refused = openssl_limited(120, $signers{sign}->($k, new_message('copied, not adopted')));
            isnt($refused->{status}, 0, 'a copied state file is refused before adopt') or diag $refused->{out};
            my ($tr, $n) = count_steps([@adopt, $current]);
            is($tr->{status}, 0, "the trace run adopts ($n steps)") or diag $tr->{err};
            cmp_ok($n, '>=', 2, 'steps were counted');
            my @problems = sign_after($k, $k->{ledger}->summary->{max_q}, 'after the trace adopt');
            for my $step (1 .. $n) {
                for my $after (positions($step, $n)) {
                    my $case = "step $step " . ($after ? 'after' : 'before');
                    $move->();
                    my $floor = $k->{ledger}->summary->{max_q};
                    my $r = killed_run([@adopt, $current], $step, $after);
                    push @problems, "$case: not killed (status $r->{status})" unless $r->{killed};
                    # Whatever the kill left: the key signs beyond every index or refuses clearly ...
                    push @problems, map { "$case: $_" } sign_after($k, $floor, "$name $case");
                    # ... and a complete adopt afterwards makes it sign beyond every index again.
                    my $again = run_limited(120, [@adopt, $current]);
                    push @problems, "$case: adopt after the kill: status $again->{status}: $again->{err}" if $again->{status} != 0;
                    push @problems, map { "$case, adopted again: $_" } sign_after($k, $k->{ledger}->summary->{max_q}, "$name $case re-adopted");
                }
            }
            problems_ok(\@problems, 'after each of the ' . $n . ' steps' . ($after_mode eq 'all' ? ' x 2' : '') . ' kills: no index repeated, signing went on beyond');
            is($k->{ledger}->summary->{rejected}, 0, 'every signature that left a process verifies');
            ledger_ok($k->{ledger}, $name);
            note("refused after a kill: $_ ($k->{refusals}{$_} times)") for sort keys %{ $k->{refusals} // {} };
        };
    }

    # ---- genpkey ----
    subtest "round $round: SIGKILL at every step of: genpkey" => sub {
        my @genargs = sub { my ($key, $state) = @_;
            ($openssl, 'genpkey', '-algorithm', 'HSS-LMS', '-pkeyopt', 'lms:LMS_SHA256_M32_H5', '-pkeyopt',
             'ots:LMOTS_SHA256_N32_W4', '-pkeyopt', "state-file:$state", '-out', $key) };
        my $gen = $genargs[0];
        my ($tr, $n) = count_steps([$gen->("$dir/g-trace$round.pem", "$st/g-trace$round.state")]);
        is($tr->{status}, 0, "the trace run generates a key ($n steps)") or diag $tr->{err};
        cmp_ok($n, '>=', 4, 'steps were counted');
        my (@problems, %outcomes);
        for my $step (1 .. $n) {
            for my $after (positions($step, $n)) {
                my $case = "step $step " . ($after ? 'after' : 'before');
                my $i = ++$g;
                my ($key, $state) = ("$dir/g$i.pem", "$st/g$i.state");
                my $r = killed_run([$gen->($key, $state)], $step, $after);
                push @problems, "$case: not killed (status $r->{status})" unless $r->{killed};
                my $k;
                if (-s $key) {
                    $outcomes{'key file written before the kill'}++;
                    $k = { key => $key, state => $state };
                } else {
                    # No key: generating it again to the same paths works, or is refused clearly.
                    my $again = run_limited(300, [$gen->($key, $state)]);
                    if ($again->{hung}) { push @problems, "$case: genpkey again hung"; next }
                    if ($again->{status} != 0) {
                        push @problems, "$case: genpkey again failed without a message" unless $again->{err} =~ /\S/;
                        my ($why) = $again->{err} =~ /(state file[^:\n]*)/;
                        $outcomes{'genpkey again refused: ' . ($why // (split /\n/, $again->{err})[0])}++;
                        # A fresh path must always work.
                        my $fresh = run_limited(300, [$gen->($key, "$state.fresh")]);
                        push @problems, "$case: genpkey to a fresh path: $fresh->{err}" if $fresh->{status} != 0;
                        $k = { key => $key, state => "$state.fresh" } if $fresh->{status} == 0;
                    } else {
                        $outcomes{'genpkey again succeeded'}++;
                        $k = { key => $key, state => $state };
                    }
                }
                next unless $k;
                $k->{pub} = pubout($k->{key});
                $k->{ledger} = reuse_ledger($k->{pub});
                push @ledgers, $k->{ledger};
                push @problems, map { "$case: $_" } sign_after($k, undef, "genpkey $case");
                push @problems, "$case: reuse: $_" for $k->{ledger}->reuses;
            }
        }
        problems_ok(\@problems, "after every kill at its $n steps: the key signs or genpkey refuses clearly");
        note("$_: $outcomes{$_}") for sort keys %outcomes;
    };
}

for my $l (@ledgers) {
    my $s = $l->summary;
    $totals{signatures} += $s->{signatures};
    $totals{pairs} += $s->{pairs};
    $totals{reuses} += $s->{reuses};
}
is($totals{reuses}, 0, 'no reuse in any ledger');
reuse_summary(%totals);
done_testing();
