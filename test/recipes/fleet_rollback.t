# The rollback matrix's fleet rows (the TPM rows: test/recipes/witness_rollback.t): sequences of a
# fleet key (docs/fleet.md) that try to get an index handed out twice or a key's last indices
# signed without the acknowledgement (docs/state.md §5), on a real 3-member etcd cluster on loopback,
# real openssl signers and real state files, judged by the independent ledger (FleetTest.pm,
# Ledger.pm: every signature verified by openssl, no index signed twice).
#
#   fleet-reserve: a host whose state file is at 0 asks for `reserve:4` when the key's counter is at
#     its last block; a host whose state file was restored below its host record skips ahead into the
#     key's last indices. The gate tests the indices the cluster would grant: refused, nothing moved
#     in the cluster or the file, until `klms-state acknowledge`; then the key signs to its end.
#   a left host's tombstone: host 1 signs, leaves; the key's counter is rewritten lower with one
#     `etcdctl put`: the next block is refused (the counter is below the left host's block end), and
#     `klms-state resync` moves the counter past it.
#   the raft term after a snapshot restore: refused until leader changes raise the restored
#     cluster's term to the one the host saw; then an index is signed twice (the documented limit).
# About 20 s on a loaded 2-core machine (a 3-member cluster, one snapshot restore, four leader
# changes, three H5 keys, about 30 signatures).
use strict;
use warnings;
use Test::More;
use Time::HiRes qw(time);
use File::Copy qw(copy);
use JSON::PP ();
use KlmsTest;
use ReuseTest;
use FleetTest;
use EtcdCluster;

unless (EtcdCluster::available()) {
    BAIL_OUT('etcd / etcdctl not installed (scripts/install-deps.sh installs etcd-server etcd-client)') if $ENV{CI};
    plan skip_all => 'etcd-server / etcd-client not installed: the fleet witness cannot be tested here';
}
plan skip_all => 'klms-witness-etcd.so not built' unless -e "$ENV{KLMS_WITNESS_DIR}/klms-witness-etcd.so";

my $t_start = time;
my $dir = private_dir();
my $state_tool = tool('klms-state');
my $openssl = $ENV{OPENSSL_BIN} // 'openssl';
my $c = EtcdCluster->start(dir => $dir, members => 3);
my $seq = 0;

# A fleet key of 32 signatures (LMS H5; the acknowledgement threshold min(100, 32 / 10) = 3: its
# indices 29, 30, 31 wait), generated on host 1 and joined by the others, blocks of 4.
sub new_fleet {
    my ($name, $hosts) = @_;
    my $f = { name => $name, dir => "$dir/$name", sigs => [], env => { %{ $c->env }, KLMS_ETCD_BLOCK => 4 } };
    mkdir $f->{dir} or die "mkdir: $!";
    for my $h (1 .. $hosts) {
        mkdir "$f->{dir}/h$h", 0700 or die "mkdir: $!";
        $f->{states}[$h] = "$f->{dir}/h$h/k.state";
    }
    $f->{key} = "$f->{dir}/k.pem";
    my $r = hss_key($f->{key}, $f->{states}[1], 'LMS_SHA256_M32_H5', 'LMOTS_SHA256_N32_W4', 'witness:etcd', { env => $f->{env} });
    die "genpkey $name: $r->{err}" if $r->{status} != 0;
    $f->{pub} = pubout($f->{key});
    for my $h (2 .. $hosts) {
        my $j = run_limited(60, [$state_tool, 'join', $f->{pub}, $f->{states}[$h]], env => $f->{env});
        die "join h$h: $j->{err}" if $j->{status} != 0;
    }
    $f->{key_id} = show($f, 1)->{key_id};
    $f->{counter} = "/klms/$f->{key_id}/counter";
    return $f;
}

sub show {
    my ($f, $h) = @_;
    my $r = run_limited(60, [$state_tool, 'show', '--json', $f->{states}[$h]], env => $f->{env});
    return eval { JSON::PP::decode_json($r->{out}) } // die "show h$h: $r->{err}$r->{out}";
}

# One CLI signature on host h (`reserve` indices per reservation); every written signature goes
# to the key's ledger. { status, err, signed, q }
sub sign {
    my ($f, $h, %o) = @_;
    my $n = ++$seq;
    my $msg = "$f->{dir}/m$n.msg";
    spew($msg, "fleet rollback: key $f->{name}, host $h, message $n\n");
    my @reserve = $o{reserve} ? ('-pkeyopt', "reserve:$o{reserve}") : ();
    my $r = run_limited(60, [$openssl, 'pkeyutl', '-sign', '-rawin', '-inkey', $f->{key}, '-pkeyopt',
                             "state-file:$f->{states}[$h]", @reserve, '-in', $msg, '-out', "$msg.sig"], env => $f->{env});
    push @{ $f->{sigs} }, ["$msg.sig", $msg, "$f->{name}/h$h/#$n"];
    $r->{signed} = $r->{status} == 0 && -s "$msg.sig" ? 1 : 0;
    return $r;
}

sub signs_ok {
    my ($f, $h, $n, $name, %o) = @_;
    for my $i (1 .. $n) {
        my $r = sign($f, $h, %o);
        ok($r->{signed}, "$name: host $h signs ($i of $n)") or diag($r->{err});
    }
}

# Refused by name; the state file and the key's counter untouched.
sub refused_like {
    my ($f, $h, $re, $name, %o) = @_;
    my $file = slurp($f->{states}[$h]);
    my $counter = ctl_value($f->{counter});
    my $r = sign($f, $h, %o);
    ok(!$r->{signed}, "$name: no signature") or return $r;
    like($r->{err}, $re, "$name: refused by name") or diag($r->{err});
    is(slurp($f->{states}[$h]), $file, "$name: the state file is untouched");
    is(ctl_value($f->{counter}), $counter, "$name: the key's counter did not move ($counter)");
    return $r;
}

sub ctl_value {
    my ($key) = @_;
    my $r = $c->etcdctl('get', $key, '--print-value-only');
    die "etcdctl get $key: $r->{err}" if $r->{status} != 0;
    return $r->{out} =~ s/\n\z//r;
}

sub ledger_clean {
    my ($f, $name) = @_;
    my $l = fleet_ledger(pub => $f->{pub}, sigs => $f->{sigs});
    fleet_ledger_ok($l, $name);
    is(scalar @{ $l->{rejected} }, 0, "$name: every signature written verifies") or diag(join "\n", @{ $l->{rejected} });
    return $l;
}

# ---- fleet-reserve: the exhaustion gate on the indices granted ----
subtest 'fleet-reserve: the gate tests the indices the cluster grants, not the state file\'s next index' => sub {
    my $f = new_fleet('reserve', 3);
    # Host 1 takes a block of 24 (reserve:24: the block is at least what is asked), signs index 0
    # and ends (its process's other 23 indices are lost, never repeated); host 2 takes [24, 28).
    signs_ok($f, 1, 1, 'host 1, reserve:24', reserve => 24);
    signs_ok($f, 2, 1, 'host 2');
    is(ctl_value($f->{counter}), 28, "the key's counter is at its last block (28 of 32)");
    is(show($f, 3)->{next_index}, 0, "host 3's state file is at 0: by its own next index, 32 remain");
    my $text = run_limited(60, [$state_tool, 'show', $f->{states}[3]], env => $f->{env})->{out};
    like($text, qr/^remaining:\s+32 \(the key's, from this host's next index; 4 not yet handed out to any host\)$/m,
         "show: a fleet host's remaining says it is the key's, and what no host holds yet") or diag($text);

    # [28, 32) holds the key's last 3 indices: refused before anything is committed.
    refused_like($f, 3, qr/acknowledg/i, 'host 3 at 0 asks reserve:4 for the last block', reserve => 4);
    # [28, 29) is not among the last 3: granted (a new block [28, 32) for host 3).
    my $backup = "$f->{states}[3].before";
    copy($f->{states}[3], $backup) or die "copy: $!";
    signs_ok($f, 3, 1, 'host 3, one index of the last block');
    is(ctl_value($f->{counter}), 32, 'every block is handed out');

    # Host 3's file restored in place (same inode): its record is ahead, at 29; the grant would skip
    # to index 29, one of the last 3.
    system("cat '$backup' > '$f->{states}[3]'") == 0 or die "cat: $?";
    refused_like($f, 3, qr/acknowledg/i, 'host 3 restored below its record, skipping into the last 3');

    my $ack = run_limited(60, [$state_tool, 'acknowledge', '--key-id', $f->{key_id}, $f->{states}[3]], env => $f->{env});
    is($ack->{status}, 0, 'klms-state acknowledge on host 3') or diag($ack->{err});
    signs_ok($f, 3, 3, 'host 3 acknowledged: the key\'s last 3 indices');
    signs_ok($f, 2, 3, 'host 2 signs out its block [24, 28)');
    my $r = sign($f, 2);
    ok(!$r->{signed}, 'host 2: nothing is left to hand out');
    like($r->{err}, qr/exhausted/i, '... refused as exhausted') or diag($r->{err});
    my $l = ledger_clean($f, 'fleet-reserve');
    is(join(',', sort { $a <=> $b } map { (split m{/}, $_)[0] } keys %{ $l->{by_index} }), '0,24,25,26,27,28,29,30,31',
       'the indices signed: 0 (host 1), 24-27 (host 2), 28-31 (host 3)');
};

# ---- a left host's tombstone ----
subtest "a left host's tombstone: one put of the counter cannot hand its block out again" => sub {
    my $f = new_fleet('tombstone', 2);
    signs_ok($f, 1, 2, 'host 1 (block [0, 4))');
    my $host1 = show($f, 1)->{witness}{fleet}{host_id};
    my $l = run_limited(60, [$state_tool, 'leave', $f->{states}[1]], env => $f->{env});
    is($l->{status}, 0, 'klms-state leave on host 1') or diag($l->{err});
    is($c->etcdctl('get', "/klms/$f->{key_id}/hosts/$host1", '--print-value-only')->{out}, '', "host 1's record is gone");
    like(ctl_value("/klms/$f->{key_id}/left/$host1"), qr/^\{"block_end":"4"\}$/, "... and its tombstone keeps its block end (4)");
    my $r = $c->etcdctl('put', $f->{counter}, '0');
    is($r->{status}, 0, "etcdctl put of the key's counter: 0") or diag($r->{err});
    refused_like($f, 2, qr/went backwards.*tombstone/s, "host 2's next block, with the counter below the left host's block");
    my $s = run_limited(60, [$state_tool, 'resync', $f->{states}[2]], env => $f->{env});
    is($s->{status}, 0, 'klms-state resync on host 2') or diag($s->{err});
    cmp_ok(ctl_value($f->{counter}), '>=', 4, "resync moved the counter past the tombstone's block end");
    signs_ok($f, 2, 2, 'host 2 after the resync');
    ledger_clean($f, 'tombstone');
};

# ---- the raft term after a snapshot restore: what it catches, and for how long ----
# The documented limit (docs/fleet.md "Disaster restore"), asserted as documented: a host whose
# revision mark is not above the snapshot is refused by the raft term it saw only until leader
# changes in the restored cluster raise its term that high; then it takes a block a host took
# after the snapshot, and the ledger finds the index signed twice. The procedure is the protection.
subtest 'a cluster restored from a snapshot: the raft term tells only until the term catches up' => sub {
    my $f = new_fleet('term', 2);
    my $before = $c->status->{raft_term};
    $c->move_leader for 1 .. 2;
    signs_ok($f, 2, 1, 'host 2 (block [0, 4)), after two leader changes');
    my $seen = $c->status->{raft_term};
    cmp_ok($seen, '>', $before, "host 2 saw raft term $seen (the cluster started in $before)");
    my $snap = $c->snapshot_save("$dir/term.snapshot");
    signs_ok($f, 1, 1, 'host 1 after the snapshot (block [4, 8))');
    $c->restore_from_snapshot($snap);
    my $term = $c->status->{raft_term};
    note("raft term: host 2 saw $seen; the restored cluster is in $term");
    refused_like($f, 2, qr/raft term/, 'host 2 (its revision mark not above the snapshot): refused by the term');
    my $moves = 0;
    while ($term < $seen && $moves < 8) {
        $term = $c->move_leader;
        $moves++;
    }
    cmp_ok($term, '>=', $seen, "after $moves leader change(s) the restored cluster is in term $term, host 2 saw $seen");
    my @r = (sign($f, 2, reserve => 3), sign($f, 2));
    ok($r[0]{signed} && $r[1]{signed}, 'host 2 is no longer refused: it signs its block, then takes [4, 8) again')
        or diag(join "\n", map { $_->{err} } @r);
    my $l = fleet_ledger(pub => $f->{pub}, sigs => $f->{sigs});
    is($l->{duplicate_indices}, 1, 'the documented limit: index 4 signed by host 1 and by host 2 (the ledger)')
        or diag($l->{summary});
    is(scalar @{ $l->{rejected} }, 0, 'every signature written verifies');
};

$c->stop;
note(sprintf('fleet_rollback: %.1f s in all', time - $t_start));
done_testing();
