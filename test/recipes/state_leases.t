# Index leases (docs/state.md "Index leases", docs/state-file-guide.md "One key on several signing hosts (leases)") through the
# real openssl binary, klms-state and separate processes: a lease signs only its range (pkeyutl and
# dgst), is exhausted at its end, is refused when copied and usable after adoption in another state
# directory (the "other machine"), can be leased further, reports its own remainder; a crash (the
# fault shim's KILL / KILLAFTER / TORN) or a failure at every system call of `klms-state lease`
# never leaves an index both in a lease and still ahead in the parent; leasing while other
# processes sign on the parent; and a ledger of every signature's q over the parent and all leases
# that must show no index twice.
use strict;
use warnings;
use Test::More;
use File::Copy qw(copy);
use Digest::SHA qw(sha256);
use KlmsTest;

my $dir = private_dir();
my $host_a = "$dir/host-a";  # the parent's host
my $host_b = "$dir/host-b";  # "another machine": its own state directory, its own processes
mkdir $_, 0700 or die for $host_a, $host_b;
$ENV{KLMS_STATE_DIR} = $host_a;
my $msg = "$dir/msg.txt";
spew($msg, "lease recipe message\n");
my $klms_state = tool('klms-state');
my $signer = tool('klms-evp-signer');
my $shim = tool('klms_fault_shim');
my $preload = join ':', grep { defined && length } $ENV{KLMS_SANITIZER_PRELOAD}, $shim;

END { kill_spawned() }

# The ledger: every q any signature in this recipe carried, per key, with where it came from.
my %ledger;  # key => { q => "file that signed it" }
my @twice;
sub record {
    my ($key, $q, $from) = @_;
    push @twice, "$key q=$q by $from and $ledger{$key}{$q}" if exists $ledger{$key}{$q};
    $ledger{$key}{$q} //= $from;
}

my $keyno = 0;
sub genkey {
    my (%o) = @_;
    my $name = 'k' . ++$keyno;
    my $key = "$dir/$name.pem";
    my $state = $o{state} // "$host_a/$name.state";
    my $r = openssl_st('genpkey', '-algorithm', 'HSS-LMS', '-pkeyopt', 'lms:' . ($o{lms} // 'LMS_SHA256_M32_H5'),
                       '-pkeyopt', 'ots:LMOTS_SHA256_N32_W4', '-pkeyopt', "state-file:$state", '-out', $key);
    die "genpkey: $r->{err}" if $r->{status} != 0;
    return { key => $key, state => $state, name => $name };
}

my $signo = 0;
# One signature with `key`, through `state` (an override) or the key's own state file; recorded in
# the ledger when it verifies. Returns the state_sign result.
sub sign_with {
    my ($k, $state, %o) = @_;
    my $s = state_sign(key => $k->{key}, in => $msg, out => "$dir/sig" . ++$signo . '.bin',
                       pkeyopt => [ $state ? ("state-file:$state") : () ], env => $o{env} // {});
    if ($s->{status} == 0) {
        if (!state_verifies($k->{key}, $msg, $s->{file})) {
            push @twice, "signature $s->{file} does not verify";
        } elsif (defined $s->{q}) {
            record($k->{name}, $s->{q}, $state // $k->{state});
        }
    }
    return $s;
}

sub lease {
    my ($parent, $target, $count, %o) = @_;
    return run_cmd_st([$klms_state, 'lease', '--count', $count, $parent, $target], env => $o{env} // {});
}

sub range_of {
    my ($info) = @_;
    return $info->{out} =~ /^kind:\s+LEASE of indices \[(\d+), (\d+)\) \(\d+ indices\), depth (\d+)/m ? ($1, $2, $3) : ();
}

subtest 'a lease signs exactly its range (pkeyutl and dgst), then is exhausted; the parent goes on after it' => sub {
    my $k = genkey();
    is(sign_with($k)->{q}, 0, 'the parent signs q=0');
    is(sign_with($k)->{q}, 1, 'the parent signs q=1');
    my $lease = "$host_a/$k->{name}-lease.state";
    my $r = lease($k->{state}, $lease, 6);
    is($r->{status}, 0, 'klms-state lease --count 6') or diag $r->{err};
    like($r->{err}, qr/leased indices \[2, 8\) \(6\)/, 'it names the range');
    my $p = state_show($k->{state});
    is($p->{next}, 8, "the parent's next index moved past the range");
    like($p->{out}, qr/^kind:\s+key state file \(not a lease\)/m, 'show: the parent is not a lease');
    my $l = state_show($lease);
    is_deeply([range_of($l)], [2, 8, 1], 'show: a lease of [2, 8), depth 1');
    is($l->{next}, 2, 'the lease starts at its range');
    is($l->{remaining}, 6, 'show: what is left of the lease');
    is($l->{max}, 8, 'its maximum is the end of its range');
    is($l->{key_id}, $p->{key_id}, 'the same key id');

    my $e = run_cmd_st([$signer, '--key', $k->{key}, '--state-file', $lease, '--remaining-only']);
    is($e->{status}, 0, 'remaining-signatures through a signing context with the state-file override') or diag $e->{err};
    like($e->{out}, qr/^remaining 6$/m, "... is the lease's own remainder");
    $e = run_cmd_st([$signer, '--key', $k->{key}, '--remaining-only']);
    like($e->{out}, qr/^remaining 24$/m, "... and without the override, the key's own file");

    my @q;
    for my $i (1 .. 5) {
        my $s = sign_with($k, $lease);
        is($s->{status}, 0, "lease signature $i") or diag $s->{err};
        push @q, $s->{q};
    }
    # openssl dgst -sign with -sigopt (streaming DigestSign) signs from the lease as well.
    my $d = openssl_st('dgst', '-sign', $k->{key}, '-sigopt', "state-file:$lease", '-out', "$dir/dgst.sig", $msg);
    is($d->{status}, 0, 'openssl dgst -sign -sigopt state-file:LEASE') or diag $d->{err};
    ok(state_verifies($k->{key}, $msg, "$dir/dgst.sig"), 'its signature verifies');
    my $dq = state_sig_q(slurp("$dir/dgst.sig"));
    record($k->{name}, $dq, $lease) if defined $dq;
    push @q, $dq;
    is_deeply(\@q, [2 .. 7], 'the lease signed q = 2..7, in order, once each');
    my $s = sign_with($k, $lease);
    isnt($s->{status}, 0, 'a seventh signature from a lease of six is refused');
    like($s->{err}, qr/exhausted/, '... as exhausted');
    is($s->{sig}, '', '... with no signature');
    like(state_show($lease)->{out}, qr/^remaining:\s+0 \(exhausted\)/m, 'show: the lease is exhausted');
    is(sign_with($k)->{q}, 8, 'the parent signs on after the range (q=8)');
};

subtest 'another machine: a lease moved to another state directory is refused until adopted, then signs there' => sub {
    my $k = genkey();
    sign_with($k) for 1 .. 3;
    my $made = "$host_a/$k->{name}-for-b.state";
    is(lease($k->{state}, $made, 10)->{status}, 0, 'leased [3, 13) on host A');
    # The transfer: the key file and the lease go to host B (a copy: a new inode).
    my $key_b = "$host_b/$k->{name}.pem";
    my $lease_b = "$host_b/lease.state";
    copy($k->{key}, $key_b) or die;
    copy($made, $lease_b) or die;
    chmod 0600, $lease_b;
    my $kb = { %$k, key => $key_b };
    my %on_b = (env => { KLMS_STATE_DIR => $host_b });
    my $s = sign_with($kb, $lease_b, %on_b);
    isnt($s->{status}, 0, 'the copy on host B is refused before adoption');
    like($s->{err}, qr/copied, restored or moved/, '... as copied');
    is(state_show($lease_b)->{copied}, 1, 'show says it looks copied');
    # The deliberate move: destroy the original on host A, then adopt on host B.
    unlink $made or die;
    my $r = run_cmd_st([$klms_state, 'adopt', $lease_b], stdin => "no\n");
    isnt($r->{status}, 0, 'adopt asks for confirmation');
    my $key_id = state_show($lease_b)->{key_id};
    $r = run_cmd_st([$klms_state, 'adopt', $lease_b], stdin => 'adopt ' . substr($key_id, 0, 8) . "\n");
    is($r->{status}, 0, 'adopted on host B after confirming the original is destroyed') or diag $r->{err};
    is_deeply([range_of(state_show($lease_b))], [3, 13, 1], 'adoption keeps the range');
    my @q;
    for (1 .. 4) {
        my $x = sign_with($kb, $lease_b, %on_b);
        is($x->{status}, 0, 'host B signs with the lease') or diag $x->{err};
        push @q, $x->{q};
    }
    # Separate processes on both hosts at once: host A on the parent, host B on the lease.
    my $pa = spawn_cmd([$signer, '--key', $k->{key}, '--in', $msg, '--count', 6, '--print-q'], out => "$dir/a.out");
    my $pb = spawn_cmd([$signer, '--key', $key_b, '--in', $msg, '--state-file', $lease_b, '--count', 6, '--print-q'],
                       out => "$dir/b.out", env => { KLMS_STATE_DIR => $host_b });
    waitpid($pa, 0);
    is($? >> 8, 0, 'host A signed 6 on the parent');
    waitpid($pb, 0);
    is($? >> 8, 0, 'host B signed 6 on the lease');
    my @qa = slurp("$dir/a.out") =~ /^(\d+)$/mg;
    my @qb = slurp("$dir/b.out") =~ /^(\d+)$/mg;
    record($k->{name}, $_, 'host A evp signer') for @qa;
    record($k->{name}, $_, 'host B evp signer') for @qb;
    is_deeply([@q, @qb], [3 .. 12], 'host B used exactly [3, 13)');
    is_deeply(\@qa, [13 .. 18], 'host A went on from 13');
    my $x = sign_with($kb, $lease_b, %on_b);
    like($x->{err}, qr/exhausted/, "host B's lease is exhausted at its end");
    # A backup of the lease restored later is refused like any restored state file.
    copy($lease_b, "$dir/backup.state") or die;
    unlink $lease_b or die;
    copy("$dir/backup.state", $lease_b) or die;
    chmod 0600, $lease_b;
    like(sign_with($kb, $lease_b, %on_b)->{err}, qr/copied, restored or moved/, 'a lease restored from a backup is refused');
};

subtest 'a lease carries the tree cache: its host builds no tree' => sub {
    my $k = genkey(lms => 'LMS_SHA256_M32_H10');
    sign_with($k);  # the parent's cache exists from key generation on
    ok(-s "$k->{state}.cache", "the parent has its tree cache");
    my $made = "$host_b/$k->{name}-cached.state";
    my $r = lease($k->{state}, $made, 4);
    is($r->{status}, 0, 'leased 4') or diag $r->{err};
    like($r->{err}, qr/copied the tree cache to \Q$made\E\.cache/, 'klms-state lease says it copied the cache');
    ok(-s "$made.cache", 'the lease has a tree cache beside it');
    is((stat "$made.cache")[2] & 07777, 0600, '... private (0600)');
    my $quiet = sign_with($k, $made, env => { KLMS_PROGRESS => '1' });
    is($quiet->{status}, 0, 'the lease signs') or diag $quiet->{err};
    unlike($quiet->{err}, qr/rebuilding the top tree/, '... without rebuilding the top tree');
    unlink "$made.cache" or die;
    my $rebuilt = sign_with($k, $made, env => { KLMS_PROGRESS => '1' });
    like($rebuilt->{err}, qr/rebuilding the top tree/, 'without the carried cache it would rebuild (the check can fail)');
};

subtest 'leases of leases: nested ranges, depth, and exhaustion at every level' => sub {
    my $k = genkey();
    my ($l1, $l2, $l3) = map { "$host_a/$k->{name}-l$_.state" } 1 .. 3;
    is(lease($k->{state}, $l1, 16)->{status}, 0, 'l1 = [0, 16) from the key');
    is(sign_with($k, $l1)->{q}, 0, 'l1 signs q=0');
    is(lease($l1, $l2, 8)->{status}, 0, 'l2 = [1, 9) from l1');
    is(lease($l2, $l3, 3)->{status}, 0, 'l3 = [1, 4) from l2');
    is_deeply([range_of(state_show($l2))], [1, 9, 2], 'l2: depth 2');
    is_deeply([range_of(state_show($l3))], [1, 4, 3], 'l3: depth 3');
    like(lease($l3, "$host_a/$k->{name}-l4.state", 4)->{err}, qr/more than the 3 left/, 'a lease cannot exceed what is left');
    is(state_show($l3)->{next}, 1, '... and cost nothing');
    my $stop;
    for my $file ($l1, $l2, $l3, $k->{state}) {
        for (1 .. 40) {
            my $s = sign_with($k, $file eq $k->{state} ? undef : $file);
            if ($s->{status} != 0) { $stop = $s->{err}; last }
        }
    }
    # Leases sign to their end; the key's own file keeps its last 3 (min(100, 32 / 10)) until
    # acknowledged (docs/state.md §5).
    is(state_show($k->{state})->{remaining}, 3, 'the key stops with 3 left');
    like($stop, qr/key nearly exhausted.*klms-state acknowledge \Q$k->{state}\E/s, '... naming klms-state acknowledge');
    my $ack = run_cmd_st([$klms_state, 'acknowledge', $k->{state}],
                         stdin => 'acknowledge ' . substr(state_show($k->{state})->{key_id}, 0, 8) . "\n");
    is($ack->{status}, 0, 'klms-state acknowledge, confirmed') or diag $ack->{err};
    for (1 .. 4) { last if sign_with($k)->{status} != 0 }
    is(state_show($l1)->{remaining}, 0, 'l1 exhausted');
    is(state_show($l2)->{remaining}, 0, 'l2 exhausted');
    is(state_show($l3)->{remaining}, 0, 'l3 exhausted');
    is(state_show($k->{state})->{remaining}, 0, 'the key exhausted');
    is_deeply([sort { $a <=> $b } keys %{ $ledger{$k->{name}} }], [0 .. 31],
              'the key and its three leases signed each of the 32 indices exactly once');
};

subtest 'pkey -text and remaining-signatures where the key\'s own state file is a lease' => sub {
    # The lease put at the path the key names (as on a host whose state directory has the same
    # layout): a rename in one file system keeps the inode, so no adoption is needed here.
    my $k = genkey();
    sign_with($k) for 1 .. 2;
    my $lease = "$host_a/$k->{name}-at-home.state";
    is(lease($k->{state}, $lease, 5)->{status}, 0, 'leased [2, 7)');
    rename $k->{state}, "$host_a/$k->{name}-parent.state" or die;
    rename $lease, $k->{state} or die;
    my $t = openssl_st('pkey', '-in', $k->{key}, '-text', '-noout');
    is($t->{status}, 0, 'pkey -text');
    like($t->{out}, qr/^state file kind: lease of indices \[2, 7\), depth 1$/m, 'pkey -text names the lease and its range');
    like($t->{out}, qr/^remaining signatures: 5$/m, "... and the lease's own remainder");
    like($t->{out}, qr/^maximum signatures: 32$/m, "... and the key's maximum");
    is(sign_with($k)->{q}, 2, 'signing without an override uses the lease');
    like(run_cmd_st([$signer, '--key', $k->{key}, '--remaining-only'])->{out}, qr/^remaining 4$/m,
         'remaining-signatures of a signing context: 4');
};

subtest 'a lease file unknown to a build fails closed; damage to its lease record is refused' => sub {
    my $k = genkey();
    my $unknown = "$host_a/$k->{name}-unknown.state";
    my $lease = "$host_a/$k->{name}-l.state";
    is(lease($k->{state}, $unknown, 4)->{status}, 0, 'leased one');
    is(lease($k->{state}, $lease, 4)->{status}, 0, 'leased another');
    # What a build without lease support sees: a flag it does not know. Here a flag unknown to this
    # build too (bit 1), with both checksums right, rewritten in place (same inode).
    my $rewrite = sub {
        my ($path, $edit) = @_;
        my $data = slurp($path);
        $edit->(\$data, $_ * 4096) for 0, 1;
        open my $fh, '+<', $path or die;
        binmode $fh;
        print $fh $data;
        close $fh;
    };
    $rewrite->($unknown, sub {
        my ($d, $o) = @_;
        # LEASE and bit 31, which no build knows. Bit 1 (WITNESS) was this test's unknown flag before
        # the witness existed, and bit 3 before the exhaustion acknowledgement took bits 3 and 4
        # (state/file_format.h): builds before each refuse such a file exactly so. The highest bit
        # is the one the next new flag is least likely to take.
        substr($$d, $o + 12, 4) = pack('L<', 0x80000001);
        substr($$d, $o + 176, 32) = sha256(substr($$d, $o, 176));
        substr($$d, $o + 248, 32) = sha256(substr($$d, $o, 248));
    });
    my $s = sign_with($k, $unknown);
    isnt($s->{status}, 0, 'a state file with an unknown flag is refused');
    like($s->{err}, qr/format version not supported/, '... as an unsupported format');
    is($s->{sig}, '', '... with no signature');
    # A changed lease record (its end moved by one, in both blocks): the checksum catches it.
    $rewrite->($lease, sub { my ($d, $o) = @_; substr($$d, $o + 216, 1) = chr(ord(substr($$d, $o + 216, 1)) + 1) });
    $s = sign_with($k, $lease);
    isnt($s->{status}, 0, 'a lease whose recorded end was changed is refused');
    like($s->{err}, qr/state file corrupt/, '... as corrupt');
};

# Every system call `klms-state lease` makes on state files, in order (state/store.cpp
# lease_state_file): pwrite 1 / fsync 1 = the parent's first block, pwrite 2 / fsync 2 = its second
# block, pwrite 3 / fsync 3 = the new lease file's image; then the fsync of the lease's directory.
# Each is crashed before (KILL), right after (KILLAFTER), torn (TORN: a partial write, then the
# crash) and failed (EIO). After each: the parent is readable and moved by 0 or the whole count; a
# lease file that can be read lies entirely below the parent's next; the parent still signs, and a
# readable lease signs inside its range.
subtest 'a crash or failure at every step of leasing never leaves an index in both' => sub {
    my $k = genkey(lms => 'LMS_SHA256_M32_H10');
    my $leasedir = "$host_a/crash-leases";
    mkdir $leasedir, 0700 or die;
    my @cases;
    for my $k (1 .. 3) {
        push @cases, ["pwrite:$k:$_", '.state'] for qw(KILL KILLAFTER TORN EIO);
        push @cases, ["fsync:$k:$_", '.state'] for qw(KILL KILLAFTER EIO);
    }
    push @cases, ["fsync:1:$_", '/crash-leases'] for qw(KILL KILLAFTER EIO);  # the directory's fsync
    my ($n, $lost, $usable) = (0, 0, 0);
    for my $case (@cases) {
        my ($rule, $suffix) = @$case;
        my $before = state_show($k->{state})->{next};
        my $target = "$leasedir/l" . ++$n . '.state';
        my $r = lease($k->{state}, $target, 4,
                      env => { LD_PRELOAD => $preload, KLMS_FAULT => $rule, KLMS_FAULT_SUFFIX => $suffix });
        my $p = state_show($k->{state});
        is($p->{status}, 0, "$rule: the parent is readable") or diag $p->{out}, $p->{err};
        ok($p->{next} == $before || $p->{next} == $before + 4, "$rule: the parent moved by 0 or 4 ($before -> $p->{next})");
        my $l = -e $target ? state_show($target) : undef;
        if ($l && $l->{status} == 0) {
            my ($start, $end) = range_of($l);
            ok(defined $end && $start >= $before && $end <= $p->{next},
               "$rule: the lease [$start, $end) lies below the parent's next $p->{next}");
            my $s = sign_with($k, $target);
            ok($s->{status} == 0 && $s->{q} >= $start && $s->{q} < $end, "$rule: the lease signs inside its range")
                or diag $s->{err};
            $usable++;
        } else {
            $lost++ if $p->{next} == $before + 4;
            ok(!$l || $l->{status} != 0, "$rule: no usable lease (" . ($l ? 'refused' : 'no file') . ')');
        }
        my $x = sign_with($k);
        ok($x->{status} == 0 && $x->{q} >= $p->{next}, "$rule: the parent signs on, beyond the range") or diag $x->{err};
        isnt($r->{status}, 0, "$rule: klms-state lease did not report success");
    }
    diag "crash cases: $n, usable leases after the crash: $usable, ranges lost: $lost";
    ok($usable > 0 && $lost > 0, 'both outcomes occurred: some crashes left a usable lease, some lost the range');
};

subtest 'leasing while other processes sign on the parent' => sub {
    my $k = genkey(lms => 'LMS_SHA256_M32_H10');
    sign_with($k);  # builds the tree cache before the race
    my @pids = map {
        spawn_cmd([$signer, '--key', $k->{key}, '--in', $msg, '--count', 25, '--print-q', '--reserve', $_],
                  out => "$dir/conc-$_.out")
    } 1, 3;
    my @ranges;
    for my $i (1 .. 8) {
        my $target = "$host_a/conc-$i.state";
        my $r = lease($k->{state}, $target, 5);
        is($r->{status}, 0, "lease $i while signers run") or diag $r->{err};
        push @ranges, [range_of(state_show($target))];
    }
    for my $pid (@pids) {
        waitpid($pid, 0);
        is($? >> 8, 0, 'a signer finished');
    }
    for my $f (map { "$dir/conc-$_.out" } 1, 3) {
        record($k->{name}, $_, "concurrent signer") for slurp($f) =~ /^(\d+)$/mg;
    }
    # Every lease signs its whole range in this process; none of it may have been signed already.
    for my $i (1 .. 8) {
        my ($start, $end) = @{ $ranges[$i - 1] };
        my @q;
        for (1 .. 6) {
            my $s = sign_with($k, "$host_a/conc-$i.state");
            last if $s->{status} != 0;
            push @q, $s->{q};
        }
        is_deeply(\@q, [$start .. $end - 1], "lease $i signed [$start, $end) after the signers");
    }
    is(scalar(keys %{ $ledger{$k->{name}} }), 1 + 50 + 40, 'every signature accounted for');
};

subtest 'the ledger over every parent and lease of this recipe shows no index twice' => sub {
    is_deeply(\@twice, [], 'no q twice, every signature verified');
    my $total = 0;
    $total += scalar keys %{ $ledger{$_} } for keys %ledger;
    cmp_ok($total, '>', 150, "signatures in the ledger: $total");
};

done_testing();
