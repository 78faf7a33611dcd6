# One key, a fleet of signers (docs/fleet.md): 8 hosts (each its own state directory and
# processes) share one etcd-witnessed key through a real 3-member etcd cluster on loopback, with
# one-shot CLI signers and long-running signers (klms-state-driver: threads x reserve sizes)
# running at once, seeded random SIGKILLs of signers and an etcd member killed and restarted in
# the middle. Judged by an independent ledger: every CLI signature verifies with the real openssl
# (test/recipes/lib/FleetTest.pm), no index is emitted twice across all hosts and both kinds of
# signer, and every host's state file is beyond every index that host emitted.
#
# Size: KLMS_FLEET_SIZE=ci (default: 8 hosts, 3 CLI signatures each, 2 driver rounds) or full
# (scripts/fleet-stress.sh: 8 hosts, 12 CLI signatures each, 6 rounds).
use strict;
use warnings;
use Test::More;
use JSON::PP;
use POSIX qw(:sys_wait_h);
use Time::HiRes qw(time usleep);
use KlmsTest;
use ReuseTest;
use FleetTest;
use EtcdCluster;

unless (EtcdCluster::available()) {
    BAIL_OUT('etcd / etcdctl not installed (scripts/install-deps.sh installs etcd-server etcd-client)') if $ENV{CI};
    plan skip_all => 'etcd not installed (scripts/install-deps.sh)';
}

my $full = ($ENV{KLMS_FLEET_SIZE} // 'ci') eq 'full';
my ($hosts, $cli_per_host, $rounds) = $full ? (8, 12, 6) : (8, 3, 2);
my $seed = $ENV{KLMS_FLEET_SEED} // int(time() * 1000) % 1000000;
diag("fleet: seed $seed (KLMS_FLEET_SEED=$seed replays it), size " . ($full ? 'full' : 'ci'));

my $dir = private_dir();
my $cluster = EtcdCluster->start(dir => $dir, members => 3);
my %env = (%{ $cluster->env }, KLMS_ETCD_BLOCK => '8');
$ENV{$_} = $env{$_} for keys %env;
my $state_tool = tool('klms-state');
my $driver = tool('klms-state-driver');

my @host_state = map { "$dir/host$_/k.state" } 1 .. $hosts;
mkdir "$dir/host$_", 0700 for 1 .. $hosts;
my $key = "$dir/key.pem";
my $g = hss_key($key, $host_state[0], 'LMS_SHA256_M32_H15', 'LMOTS_SHA256_N32_W4', 'witness:etcd');
is($g->{status}, 0, 'genpkey -pkeyopt witness:etcd: the key and the first host') or diag($g->{err});
my $pub = pubout($key);
for my $h (2 .. $hosts) {
    my $r = run_limited(60, [$state_tool, 'join', $pub, $host_state[$h - 1]]);
    is($r->{status}, 0, "klms-state join: host $h") or diag($r->{err});
}
sub show_json {
    my ($path) = @_;
    my $r = run_limited(60, [$state_tool, 'show', '--json', $path]);
    return $r->{status} == 0 ? decode_json($r->{out}) : undef;
}
my $first = show_json($host_state[0]);
my $key_id = $first->{key_id};
ok(defined $key_id && $first->{witness}{kind} eq 'etcd', 'the state file names its etcd witness')
    or diag(explain($first));

# Every index a host emitted: { host => [indices] }, from CLI signatures and from the drivers.
my %emitted;
my @cli_sigs;

# One round: CLI signers on every host (run_fleet, seeded kills) and, at the same time, a driver
# per host with 2 threads and its own reserve size; etcd member `fault` killed during the round.
sub round {
    my ($r, $fault) = @_;
    my @drivers;
    for my $h (1 .. $hosts) {
        my $batch = (1, 16, 3, 256)[($h + $r) % 4];
        my $out = "$dir/driver-r$r-h$h.out";
        my $pid = fork // die "fork: $!";
        if ($pid == 0) {
            open STDOUT, '>', $out or die;
            open STDERR, '>', "$out.err" or die;
            exec $driver, $host_state[$h - 1], $key_id, $batch, 12, '--threads', 2;
            POSIX::_exit(127);  # never exit: END and DESTROY would stop the cluster
        }
        push @drivers, { pid => $pid, host => $h, out => $out, batch => $batch };
    }
    # A seeded half of the drivers is SIGKILLed a little later (mid-reservation, mid-write).
    my $rand = do { my $x = ($seed + $r) % 2147483647 || 1; sub { $x = ($x * 48271) % 2147483647; $x / 2147483647 } };
    my @victims = grep { $rand->() < 0.5 } @drivers;
    my $killer = fork // die "fork: $!";
    if ($killer == 0) {
        for my $d (@victims) { usleep(int(50_000 + $rand->() * 400_000)); kill 'KILL', $d->{pid} }
        POSIX::_exit(0);  # never exit: END and DESTROY would stop the cluster
    }
    $cluster->kill_member($fault) if defined $fault;
    mkdir "$dir/cli-r$r", 0700;
    my $f = run_fleet(hosts => $hosts, per_host => $cli_per_host, dir => "$dir/cli-r$r", seed => $seed + $r,
                      kills => 3, kill_after_ms => [0, 300], timeout => 240, command_timeout => 60,
                      command => sub {
                          my ($h, $s) = @_;
                          my $msg = "$dir/cli-r$r-h$h-s$s.msg";
                          spew($msg, "fleet round $r host $h signature $s\n");
                          return { argv => [$ENV{OPENSSL_BIN} // 'openssl', 'pkeyutl', '-sign', '-rawin',
                                            '-inkey', $key, '-in', $msg, '-out', "$msg.sig",
                                            '-pkeyopt', "state-file:$host_state[$h - 1]"],
                                   env => {}, sig => "$msg.sig", msg => $msg };
                      });
    $cluster->start_member($fault) if defined $fault;
    waitpid($killer, 0);
    my $deadline = time() + 120;
    for my $d (@drivers) {
        while (waitpid($d->{pid}, WNOHANG) == 0) {
            if (time() > $deadline) { kill 'KILL', $d->{pid}; waitpid($d->{pid}, 0); last }
            usleep(20_000);
        }
        open my $fh, '<', $d->{out} or die;
        for my $line (<$fh>) {
            next unless $line =~ /^(\d+)$/;
            push @{ $emitted{ $d->{host} } }, $1;
        }
    }
    is($f->{hung}, 0, "round $r: no CLI signer hung") or diag(explain($f->{killed}));
    my @ok = grep { $_->{status} == 0 } @{ $f->{runs} };
    my @refused = grep { !$_->{killed} && $_->{status} != 0 } @{ $f->{runs} };
    ok(@ok >= $hosts, "round $r: CLI signatures were made (" . scalar(@ok) . " of " . scalar(@{ $f->{runs} }) . ")")
        or diag(join "\n", map { -e $_->{err} ? slurp($_->{err}) : $_->{err} } @refused[0 .. ($#refused < 3 ? $#refused : 3)]);
    for my $run (@{ $f->{runs} }) {
        next unless -s $run->{sig};
        push @cli_sigs, [$run->{sig}, $run->{msg}, "r$r/h$run->{host}/s$run->{seq}", $run->{host}];
    }
    diag("round $r: kills of CLI signers: @{ $f->{killed} }") if @{ $f->{killed} };
}

round(1, undef);
round($_, $_ % 3) for 2 .. $rounds;

# The ledger: every CLI signature verified; no index twice among them.
my $l = fleet_ledger(pub => $pub, sigs => [map { [@$_[0 .. 2]] } @cli_sigs]);
fleet_ledger_ok($l, 'CLI signatures of all hosts');
is(scalar @{ $l->{rejected} }, 0, 'every CLI signature verifies') or diag(join "\n", @{ $l->{rejected} });
# The CLI signatures' indices belong to their hosts too.
for my $s (@cli_sigs) {
    my $q = state_sig_q(slurp($s->[0]), state_shapes('LMS_SHA256_M32_H15', 'LMOTS_SHA256_N32_W4'));
    push @{ $emitted{ $s->[3] } }, $q if defined $q;
}
# No index twice across hosts and kinds of signer.
my %by;
for my $h (keys %emitted) { push @{ $by{$_} }, "host $h" for @{ $emitted{$h} } }
my @twice = grep { @{ $by{$_} } > 1 } sort { $a <=> $b } keys %by;
my $total = 0;
$total += @{ $emitted{$_} } for keys %emitted;
ok(!@twice, "no index emitted twice across $hosts hosts, CLI and long-running signers ($total indices, "
            . scalar(keys %by) . ' distinct)');
diag("TWICE: index $_: @{ $by{$_} }") for @twice[0 .. ($#twice < 9 ? $#twice : 9)];
# Every host's file is beyond what it emitted.
for my $h (1 .. $hosts) {
    my $j = show_json($host_state[$h - 1]);
    my ($max) = sort { $b <=> $a } @{ $emitted{$h} // [] };
    ok(defined $j && (!defined $max || $j->{next_index} > $max),
       "host $h: next index " . ($j ? $j->{next_index} : '?') . ' is beyond every index it emitted (' . ($max // 'none') . ')');
}
# The cluster's counter covers every block handed out.
my $c = $cluster->etcdctl('get', "/klms/$key_id/counter", '--print-value-only');
chomp(my $counter = $c->{out});
my ($highest) = sort { $b <=> $a } keys %by;
ok($counter =~ /^\d+$/ && $counter > ($highest // -1), "the key's counter ($counter) is beyond every emitted index ($highest)");
diag(sprintf('fleet ledger summary: %d indices from %d hosts (%d CLI signatures verified), 0 twice; counter %s',
             $total, scalar(keys %emitted), $l->{signatures}, $counter));

done_testing();
