# Helpers of the fleet recipes (many signing hosts sharing one key through a fleet witness): the
# independent ledger over the signatures every host wrote (test/support/Ledger.pm through
# ReuseTest::reuse_ledger: every signature verified by the real openssl) and a driver that runs
# the hosts' signers in parallel, with bounded waits and seeded random SIGKILLs.
#
#   my $l = fleet_ledger(pub => $pub_pem, sigs => [[$sig_file, $msg_file, $label], ...],
#                        verify_mode => 'all' | 'collisions');
#     # { ledger, signatures, by_index => { path => [labels] }, duplicates => [text], duplicate_indices,
#     #   duplicate_signatures, reuses => [text], rejected => [text], partial => [{ label, q }], missing }
#   fleet_ledger_ok($l, $name);   # no index signed twice, every duplicate listed when there is one
#
#   my $f = run_fleet(hosts => 8, per_host => 5, dir => $d,
#                     command => sub { my ($host, $seq) = @_; return { argv => [...], env => {...},
#                                                                      sig => $file, msg => $file } },
#                     timeout => 300, command_timeout => 60, kills => 3, seed => 42, kill_after_ms => [0, 400]);
#     # { runs => [ { host, seq, argv, sig, msg, status, signal, killed, hung, secs, out, err } ],
#     #   killed => [ "h3/s2 after 120 ms", ... ], hung, not_started, seed, secs }
# Bounded: a command running longer than command_timeout is killed (hung => 1), and after `timeout`
# seconds every running command is killed and no new one starts (not_started counts them).
#   fleet_sigs($f);               # the [sig, msg, label] list of the runs that wrote a signature file
#
# Hosts and sequence numbers count from 1. Each host runs its commands one after the other; all
# hosts run at once. A signer chosen for a kill gets SIGKILL `kill_after_ms` after it started (if it
# is still running); the choice comes from `seed` (default: time) and is reported by diag, so a
# failure can be replayed with the same seed.
package FleetTest;

use strict;
use warnings;
use Exporter 'import';
use POSIX qw(:sys_wait_h);
use Time::HiRes qw(time usleep);
use KlmsTest;
use ReuseTest;

our @EXPORT = qw(fleet_ledger fleet_ledger_ok run_fleet fleet_sigs);

# The index path of a signature ("q_0/q_1/..." per HSS level, RFC 8554 §6.2) and its global q.
sub _path { return join '/', @{ $_[0] } }

sub fleet_ledger {
    my (%o) = @_;
    my $ledger = reuse_ledger($o{pub} // die "fleet_ledger: pub required\n", verify_mode => $o{verify_mode} // 'all');
    my %res = (ledger => $ledger, signatures => 0, by_index => {}, rejected => [], partial => [], missing => 0);
    my %q_of;
    for my $s (@{ $o{sigs} // [] }) {
        my ($sig_file, $msg_file, $label) = ref $s eq 'ARRAY' ? @$s : ($s->{sig}, $s->{msg}, $s->{label});
        $label //= $sig_file;
        if (!-e $sig_file || !-s _) { $res{missing}++; next }
        my $sig = slurp($sig_file);
        my $a = $ledger->add(sig => $sig, msg => slurp($msg_file), label => $label);
        if ($a->{ok}) {
            $res{signatures}++;
            my $path = _path($a->{levels});
            push @{ $res{by_index}{$path} }, $label;
            $q_of{$path} = $a->{q};
        } elsif ($a->{why} =~ /^malformed/ && defined(my $q = $ledger->prefix_q($sig))) {
            # A signer killed while writing: the index it took is known, the signature is no use.
            push @{ $res{partial} }, { label => $label, q => $q };
        } else {
            push @{ $res{rejected} }, "$label: $a->{why}";
        }
    }
    my @dup = grep { @{ $res{by_index}{$_} } > 1 } sort { $q_of{$a} <=> $q_of{$b} } keys %{ $res{by_index} };
    $res{duplicates} = [map { "index $_ (q $q_of{$_}) signed " . @{ $res{by_index}{$_} } . ' times: '
                              . join(', ', @{ $res{by_index}{$_} }) } @dup];
    $res{duplicate_indices} = scalar @dup;
    $res{duplicate_signatures} = 0;
    $res{duplicate_signatures} += @{ $res{by_index}{$_} } - 1 for @dup;
    $res{reuses} = [$ledger->reuses];
    $res{summary} = sprintf('fleet ledger: signatures=%d distinct_indices=%d duplicate_indices=%d duplicate_signatures=%d '
                            . 'reuses=%d partial=%d rejected=%d missing=%d', $res{signatures}, scalar(keys %{ $res{by_index} }),
                            $res{duplicate_indices}, $res{duplicate_signatures}, scalar @{ $res{reuses} },
                            scalar @{ $res{partial} }, scalar @{ $res{rejected} }, $res{missing});
    return \%res;
}

# fleet_ledger_ok($l, $name): no index signed twice (and so no one-time key reused).
sub fleet_ledger_ok {
    my ($l, $name) = @_;
    require Test::More;
    local $Test::Builder::Level = $Test::Builder::Level + 1;
    my $ok = Test::More::ok($l->{duplicate_indices} == 0 && !@{ $l->{reuses} }, "$name: no index signed twice ($l->{summary})");
    Test::More::diag("DUPLICATE: $_") for @{ $l->{duplicates} };
    Test::More::diag("REUSE: $_") for @{ $l->{reuses} };
    return $ok;
}

# A small seeded generator (not Perl's rand: that one also picks the harness's ports).
sub _rng {
    my ($seed) = @_;
    my $x = ($seed % 2147483647) || 1;
    return sub { $x = ($x * 48271) % 2147483647; return $x / 2147483647 };
}

sub run_fleet {
    my (%o) = @_;
    my $hosts = $o{hosts} // 8;
    my $per = $o{per_host} // 1;
    my $cmd = $o{command} // die "run_fleet: command required\n";
    my $dir = $o{dir} // private_dir();
    my $timeout = $o{timeout} // 300;
    my $cmd_timeout = $o{command_timeout} // 120;
    my $seed = $o{seed} // (time() * 1000 % 1000000);
    my $rand = _rng($seed);
    my ($lo, $hi) = @{ $o{kill_after_ms} // [0, 500] };
    my @all = map { my $h = $_; map { [$h, $_] } 1 .. $per } 1 .. $hosts;
    my %kill;
    my $kills = $o{kills} // 0;
    $kills = @all if $kills > @all;
    while (keys %kill < $kills) {
        my $pick = $all[int($rand->() * @all)];
        $kill{"$pick->[0]/$pick->[1]"} //= $lo + int($rand->() * ($hi - $lo + 1));
    }
    require Test::More;
    Test::More::diag("run_fleet: seed $seed, $hosts hosts x $per, SIGKILL planned for: "
                     . (join(', ', map { "h$_ after $kill{$_} ms" } sort keys %kill) || 'none'));

    my (@runs, %running, %next, @killed);
    $next{$_} = 1 for 1 .. $hosts;
    my $t0 = time;
    my $deadline = $t0 + $timeout;
    my ($hung, $not_started) = (0, 0);
    while (1) {
        for my $h (1 .. $hosts) {
            next if $running{$h} || $next{$h} > $per;
            if (time > $deadline) { $not_started += $per - $next{$h} + 1; $next{$h} = $per + 1; next }
            my $seq = $next{$h}++;
            my $spec = $cmd->($h, $seq);
            my %run = (host => $h, seq => $seq, argv => $spec->{argv}, sig => $spec->{sig}, msg => $spec->{msg},
                       out => "$dir/fleet-h$h-s$seq.out", err => "$dir/fleet-h$h-s$seq.err", start => time);
            $run{pid} = spawn_cmd($spec->{argv}, env => $spec->{env} // {}, out => $run{out}, err => $run{err});
            $run{kill_at} = $run{start} + $kill{"$h/$seq"} / 1000 if defined $kill{"$h/$seq"};
            push @runs, \%run;
            $running{$h} = \%run;
        }
        last unless %running;
        for my $h (sort keys %running) {
            my $r = $running{$h};
            if (waitpid($r->{pid}, WNOHANG) == $r->{pid}) {
                $r->{status} = $? >> 8;
                $r->{signal} = $? & 127;
                $r->{status} = 128 + $r->{signal} if $r->{signal};
                $r->{secs} = time - $r->{start};
                delete $running{$h};
                next;
            }
            if (defined $r->{kill_at} && time >= $r->{kill_at} && !$r->{killed}) {
                kill 'KILL', $r->{pid};
                $r->{killed} = 1;
                push @killed, sprintf('h%d/s%d after %d ms', $h, $r->{seq}, (time - $r->{start}) * 1000);
            } elsif (!$r->{hung} && (time - $r->{start} > $cmd_timeout || time > $deadline)) {
                kill 'KILL', $r->{pid};
                $r->{hung} = 1;
                $hung++;
            }
        }
        usleep(10_000);
    }
    for my $r (@runs) {
        $r->{killed} //= 0;
        $r->{hung} //= 0;
        $r->{out_text} = -e $r->{out} ? slurp($r->{out}) : '';
        $r->{err_text} = -e $r->{err} ? slurp($r->{err}) : '';
    }
    my %res = (runs => \@runs, killed => \@killed, hung => $hung, not_started => $not_started, seed => $seed,
               secs => time - $t0);
    Test::More::diag(sprintf('run_fleet: %d commands in %.1f s; killed: %s; hung: %d; not started (past the %d s deadline): %d',
                             scalar @runs, $res{secs}, join(', ', @killed) || 'none', $hung, $timeout, $not_started));
    return \%res;
}

sub fleet_sigs {
    my ($f) = @_;
    return [map { [$_->{sig}, $_->{msg}, "h$_->{host}/s$_->{seq}"] } grep { defined $_->{sig} && -e $_->{sig} } @{ $f->{runs} }];
}

1;
