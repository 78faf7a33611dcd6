# docs/fleet.md as a user follows it: every ```sh block of the page runs, in order, in one bash
# session (one terminal: what a block exports, the next one has), with HOME a fresh private
# directory, the real etcd and etcdctl from PATH, and `openssl` (the OpenSSL under test) and
# `klms-state` (the built one) first in PATH. The one edit a user may make is the page's: `port`,
# set to the start of six free ports. Then what the page promises is checked: three healthy
# members whose process ids the page recorded, two signatures from two hosts at the indices the
# page names (0 and 256, read from the signatures by the independent ledger, both verified by
# openssl), and the page's stop: every member gone. About 5 s (a 3-member cluster, an H10 key).
use strict;
use warnings;
use Test::More;
use IO::Socket::INET;
use POSIX qw(:sys_wait_h);
use Time::HiRes qw(time usleep);
use KlmsTest;
use ReuseTest;
use FleetTest;
use EtcdCluster;

unless (EtcdCluster::available()) {
    BAIL_OUT('etcd / etcdctl not installed (scripts/install-deps.sh installs etcd-server etcd-client)') if $ENV{CI};
    plan skip_all => 'etcd-server / etcd-client not installed: docs/fleet.md cannot be followed here';
}
plan skip_all => 'klms-witness-etcd.so not built' unless -e "$ENV{KLMS_WITNESS_DIR}/klms-witness-etcd.so";

my $page = "$ENV{KLMS_SOURCE_DIR}/docs/fleet.md";
my $text = slurp($page);
my @blocks = $text =~ /^```sh\n(.*?)^```$/msg;
ok(@blocks >= 4, scalar(@blocks) . ' sh blocks in docs/fleet.md');

my $dir = private_dir();
my $home = "$dir/home";
mkdir $_, 0700 or die "mkdir $_: $!" for "$dir/bin", $home;
symlink($ENV{OPENSSL_BIN}, "$dir/bin/openssl") or die;
symlink(tool('klms-state'), "$dir/bin/klms-state") or die;

# Six consecutive free ports on 127.0.0.1 (the page's members take port .. port + 5).
sub free_ports {
    for (1 .. 100) {
        my $base = 20000 + 2 * int(rand(19000));
        my @held;
        for my $p ($base .. $base + 5) {
            my $s = IO::Socket::INET->new(LocalAddr => '127.0.0.1', LocalPort => $p, Proto => 'tcp', Listen => 1, ReuseAddr => 0)
                or last;
            push @held, $s;
        }
        return $base if @held == 6;
    }
    die "no six free consecutive ports on 127.0.0.1\n";
}
my $port = free_ports();
my $edits = ($blocks[0] =~ s/^port=2379$/port=$port/m);
is($edits, 1, "the page's first block sets port=2379, the one line a user changes (here to $port)");

# One session: each block between markers, so that a failure names its block.
my $script = "set -euo pipefail\ncd\n";
for my $i (0 .. $#blocks) {
    $script .= "echo \"@@ block $i start \$(date +%s.%N)\" >&2\n$blocks[$i]\necho \"@@ block $i end \$(date +%s.%N)\" >&2\n";
}
my %env = (PATH => "$dir/bin:$ENV{PATH}", HOME => $home, KLMS_ETCD_ENDPOINTS => undef, ETCDCTL_ENDPOINTS => undef,
           ETCDCTL_API => undef, KLMS_ETCD_USER => undef, KLMS_ETCD_PASSWORD_FILE => undef, KLMS_ETCD_BLOCK => undef,
           KLMS_ETCD_PREFIX => undef);
my $pids_file = "$home/etcd-demo/pids";
my $t0 = time;
my $r = run_cmd(['timeout', '-k', '5', '120', 'bash', '-c', $script], env => \%env);
my $secs = time - $t0;

END {
    # Whatever happened, no member of the page's cluster outlives the test.
    if (defined $pids_file && -e $pids_file) {
        for my $pid (split /\s+/, slurp($pids_file)) {
            kill 'KILL', $pid if $pid =~ /^\d+$/ && -e "/proc/$pid" && slurp("/proc/$pid/cmdline") =~ /^etcd\0/;
        }
    }
}

my %at;
$at{"$1 $2"} = $3 while $r->{err} =~ /^@@ block (\d+) (start|end) ([\d.]+)$/mg;
my @ran = grep { defined $at{"$_ end"} } 0 .. $#blocks;
note(sprintf('block %d: %.1f s', $_, $at{"$_ end"} - $at{"$_ start"})) for @ran;
is(scalar @ran, scalar @blocks, sprintf('every block ran to its end (%d of %d) in %.1f s', scalar @ran, scalar @blocks, $secs))
    or diag("exit $r->{status}; stopped in block " . scalar(@ran) . ":\n$blocks[scalar @ran]\n---- stderr:\n$r->{err}\n---- stdout:\n$r->{out}");
is($r->{status}, 0, 'the session exits 0');

# ---- What the page promises ----
my @healthy = "$r->{out}\n$r->{err}" =~ /^(\S+) is healthy/mg;
is(scalar @healthy, 3, 'etcdctl endpoint health: three healthy members') or diag($r->{err});
like("@healthy", qr/127\.0\.0\.1:$port\b/, "... on the ports from port=$port");
my @pids = -e $pids_file ? split(/\s+/, slurp($pids_file)) : ();
is(scalar(grep { /^\d+$/ } @pids), 3, "the members' process ids are in ~/etcd-demo/pids");
like($r->{out} . $r->{err}, qr/Signature Verified Successfully/, "host 2's signature verifies (the page's pkeyutl -verify)");
like($r->{out}, qr/^state file:\s+host2\/k\.state$/m, 'klms-state show host2/k.state printed the state file');
like($r->{out}, qr/^fleet:\s+key counter 512, 2 host record/m, '... the key counter (two blocks of 256) and the two hosts');

my $fleet = "$home/etcd-demo/fleet";
BAIL_OUT('the page made no key') unless -e "$fleet/key.pub";
my $l = fleet_ledger(pub => "$fleet/key.pub", sigs => [["$fleet/fw1.sig", "$fleet/fw.bin", 'host 1'], ["$fleet/fw2.sig", "$fleet/fw.bin", 'host 2']]);
is($l->{signatures}, 2, 'both signatures verify (the ledger, with openssl)');
fleet_ledger_ok($l, 'the two hosts');
is_deeply({ map { ($l->{by_index}{$_}[0] => $_) } keys %{ $l->{by_index} } }, { 'host 1' => 0, 'host 2' => 256 },
          'host 1 signed index 0 and host 2 index 256, as the page says');
ok(-e "$fleet/signer1.password" && ((stat _)[2] & 077) == 0, "the Configuration block's password file is private");

# The page's stop: every member it started is gone (a member that outlives its SIGTERM is a page
# that does not stop what it started). The leader, whose followers stopped first, takes a few
# seconds (etcd 3.4 campaigns before it exits).
my $stop0 = time;

my $deadline = $stop0 + 10;
my @alive;
while (1) {
    @alive = grep { /^\d+$/ && -e "/proc/$_" && slurp("/proc/$_/cmdline") =~ /^etcd\0/ } @pids;
    last if !@alive || time > $deadline;
    usleep(100_000);
}
diag("$_: " . join('', (split /^/m, slurp($_))[-10 .. -1])) for @alive ? glob("$home/etcd-demo/m*.log") : ();
is("@alive", '', sprintf("the page's kill stopped every member (%.1f s after the session ended; at most 10 s)", time - $stop0));
note(sprintf('fleet_guide: %.1f s', $secs));
done_testing();
