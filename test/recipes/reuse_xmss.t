# The reuse search on XMSS and XMSS^MT keys (docs/xmss.md), judged by the independent ledger
# (test/support/XmssLedger.pm through Ledger::for_public_key: it parses RFC 8391 signatures itself,
# every one-time key (layer, tree, leaf), every signature verified by the real openssl):
#   - the ledger: real signatures of n = 32 and n = 24, SHA-256, SHAKE256 and K-XMSS (w = 4, 256)
#     sets and of XMSS^MT (indices of 3, 5 and 8 bytes) parse and verify; a state file copied back in place without a witness (the
#     documented limit, docs/state.md "What is not detected") signs an index again and the ledger
#     names it; XMSS^MT signatures of one bottom tree repeat its root's signature and are no reuse;
#     cut and forged signatures are refused or flagged;
#   - crash points (test/support/fault_shim.c, KLMS_KILL_TRACE) as test/recipes/reuse_crash_points.t
#     enumerates them: SIGKILL before and after every durable step of an XMSS signature, a
#     reservation (reserve:5), a signature that rebuilds the tree cache, and an XMSS^MT signature
#     that enters a new bottom tree (builds and caches it); after each kill the key signs beyond
#     every index that left a process (the tree-building cases, ~20 steps each, kill after a step only
#     where the next was not traced: see kill_positions);
#   - duplication: signers at once (openssl pkeyutl, dgst and klms-evp-signer with threads and
#     reservations, SIGKILLed at random), a lease signing beside its parent, and klms-reuse-dup's
#     fork and clone cases;
#   - the rollback matrix with a TPM witness (swtpm): the state file copied back from every earlier
#     moment (with its tree caches; XMSS^MT across two bottom trees) is refused (and then
#     resynced) or signs beyond every used index;
#   - the fleet: an XMSS^MT key shared by two hosts through a 3-member etcd (klms-state join),
#     their blocks crossing bottom trees.
# Cost: 42-57 s in a release build on 2 cores at load 2.5-5 (~650 processes, one swtpm, one 3-member
# etcd). KLMS_REUSE_XMSS_FULL=1 (scripts/stress-state.sh --size full; about 85 s) adds every
# klms-reuse-dup case, kills after every step of the tree-building cases, and the crash points of an
# XMSS^MT reservation, a streaming XMSS signature and an XMSS^MT 20/4 signature entering new trees on
# two layers.
use strict;
use warnings;
use Test::More;
use File::Copy qw(copy);
use POSIX qw(WNOHANG);
use Time::HiRes qw(time sleep);
use KlmsTest;
use ReuseTest;
use FleetTest;
use SwTpm;
use EtcdCluster;

my $full = $ENV{KLMS_REUSE_XMSS_FULL};
my $dir = private_dir();
my $st = "$dir/st";
mkdir $st, 0700 or die;
my $openssl = $ENV{OPENSSL_BIN} // 'openssl';
my $state_tool = tool('klms-state');
my %totals = (crash_points => 0, kills => 0, signers => 0, signatures => 0, pairs => 0, reuses => 0);
my @ledgers;
END { kill_spawned() }

# A subtest that says its time (the recipe's cost, docs/development.md).
sub timed_subtest {
    my ($name, $code) = @_;
    my $t = time;
    my $ok = subtest($name, $code);
    note(sprintf('%.1f s: %s', time - $t, $name));
    return $ok;
}

my $seq = 0;
sub new_message {
    my ($what) = @_;
    my $i = ++$seq;
    spew("$dir/m$i.msg", "message $i: $what\n" . ('x' x ($i % 89)));
    return ("$dir/m$i.msg", "$dir/m$i.sig");
}

# A key: { key, state, pub, ledger, set }; pkeyopts after the set (witness:tpm ...), env for genpkey.
my $keyno = 0;
sub new_key {
    my ($set, %o) = @_;
    my $n = ++$keyno;
    my $d = $o{dir} // $st;
    my $k = { key => "$dir/k$n.pem", state => "$d/k$n.state", set => $set, env => $o{env} // {} };
    my $r = xmss_key($k->{key}, $k->{state}, $set, @{ $o{pkeyopt} // [] }, { env => $k->{env} });
    die "genpkey $set: $r->{err}" if $r->{status} != 0;
    $k->{pub} = pubout($k->{key});
    $k->{ledger} = reuse_ledger($k->{pub}, verify_mode => $o{verify_mode} // 'all');
    push @ledgers, $k->{ledger};
    return $k;
}

sub sign_argv {
    my ($k, $m, $s, @opts) = @_;
    return ('pkeyutl', '-sign', '-rawin', '-inkey', $k->{key}, '-in', $m, '-out', $s, (map { ('-pkeyopt', $_) } @opts));
}

# Adds a signature file to the key's ledger when one was written: the ledger's answer, or undef.
sub record {
    my ($k, $s, $m, $who) = @_;
    return undef unless -e $s && -s $s;
    return $k->{ledger}->add(sig => slurp($s), msg => slurp($m), label => "$who ($s)");
}

# One signature of a new message: the ledger's answer ({ ok, q } or { ok => 0, why }), with the run.
sub sign_one {
    my ($k, $what, @opts) = @_;
    my ($m, $s) = new_message($what);
    if (@opts && ref $opts[0] eq 'HASH') { my $o = shift @opts; copy($o->{msg}, $m) or die "copy: $!" }
    my $r = openssl_limited(120, sign_argv($k, $m, $s, @opts), { env => $k->{env} });
    $totals{signers}++;
    my $a = $r->{status} == 0 ? record($k, $s, $m, $what) : undef;
    return { %{ $a // { ok => 0, why => "refused: $r->{err}" } }, run => $r, sig => $s, msg => $m };
}

sub problems_ok {
    my ($problems, $name) = @_;
    local $Test::Builder::Level = $Test::Builder::Level + 1;
    ok(!@$problems, $name) or diag join("\n", @$problems);
}

# ---- the ledger itself ----
timed_subtest 'the ledger parses every kind of XMSS set, and fails on a reuse' => sub {
    for my $set (qw(XMSS-SHA2_10_256 XMSS-SHA2_10_192 XMSS-SHAKE256_10_192 K-XMSS-LSH256_10_256_w256 K-XMSS-TDMCHAM_10_256_w4
                    XMSSMT-SHA2_20/2_192 XMSSMT-SHAKE256_20/4_256 XMSSMT-SHA2_40/8_256 XMSSMT-SHAKE256_60/12_192)) {
        my $k = new_key($set);
        my @a = map { sign_one($k, "$set $_") } 1 .. 2;
        my $d = $set =~ m{/(\d+)_} ? $1 : 1;
        ok($a[0]{ok} && $a[1]{ok}, "$set: two signatures parsed and verified by openssl") or diag explain [map { $_->{why} } @a];
        is_deeply([map { $_->{q} } @a], [0, 1], "$set: at indices 0 and 1");
        is(scalar @{ $a[1]{levels} // [] }, $d, "$set: $d layer(s)");
        is($k->{ledger}->summary->{pairs}, $d == 1 ? 2 : $d + 1, "$set: one-time keys: one per signature at the bottom, the upper layers shared");
        ok(!$k->{ledger}->reuses, "$set: no reuse");
        my $cut = substr(slurp($a[1]{sig}), 0, -1);
        like($k->{ledger}->add(sig => $cut, msg => slurp($a[1]{msg}))->{why}, qr/truncated/, "$set: a cut signature is malformed");
        is($k->{ledger}->prefix_q($cut), 1, "$set: its index is known");
    }
    # A state file copied back in place without a witness is not detected (docs/state.md "What is
    # not detected"): the index is signed again; the ledger must say so.
    for my $set (qw(XMSS-SHA2_10_256 XMSSMT-SHA2_20/2_256)) {
        my $k = new_key($set, pkeyopt => ['witness:none']);
        sign_one($k, 'first');
        copy($k->{state}, "$dir/backup.state") or die;
        my $second = sign_one($k, 'second');
        my $third = sign_one($k, 'third');
        copy("$dir/backup.state", $k->{state}) or die;  # in place: the same inode
        my $again = sign_one($k, 'second, signed again from the copy', { msg => $second->{msg} });
        ok($again->{ok}, "$set: the copy signs again (undetected without a witness)") or diag $again->{why};
        is($again->{q}, $second->{q}, "$set: at the index of the second signature");
        is(slurp($again->{sig}), slurp($second->{sig}), "$set: the same message at the same index: the same bytes");
        is(scalar $k->{ledger}->reuses, 0, "$set: and no reuse");
        my $reuse = sign_one($k, 'a different message at a used index');
        is($reuse->{q}, $third->{q}, "$set: the next one repeats the third's index");
        my @r = $k->{ledger}->reuses;
        is(scalar @r, 1, "$set: the ledger names one reuse") or diag explain \@r;
        like($r[0] // '', qr/layer 0 tree 0 leaf 2 signed two different messages/, "$set: the bottom leaf, two messages");
        pop @ledgers;  # a reuse made on purpose
    }
    # XMSS^MT across a bottom tree: layer 1 signs another root with another leaf; a layer-1 part
    # swapped in from another bottom tree is a reuse of that layer-1 leaf (forged: it does not verify,
    # so only a ledger that does not verify counts it).
    my $k = new_key('XMSSMT-SHA2_20/4_256');
    sign_one($k, "filler", 'reserve:31');
    my @a = map { sign_one($k, "across $_") } 1 .. 3;
    is_deeply([map { $_->{q} } @a], [31, 32, 33], 'XMSS^MT 20/4: indices 31, 32, 33 (a new bottom tree at 32)');
    is_deeply($a[1]{levels}, [0, 0, 1, 0], 'index 32: leaves 0, 0, 1, 0 from the top');
    ok(!$k->{ledger}->reuses, 'no reuse across the bottom trees');
    my ($s31, $s32) = (slurp($a[0]{sig}), slurp($a[1]{sig}));
    my $part = (3 + 32) + (67 + 5) * 32;  # layer 1 starts after idx, r and the bottom layer
    my $forged = substr($s31, 0, $part) . substr($s32, $part);
    my $nv = Ledger::for_public_key(slurp($k->{pub}), verify_mode => 'none');
    $nv->add(sig => $_, msg => 'm') for $s31;
    $nv->add(sig => $forged, msg => 'm', label => 'forged');
    like(join("\n", $nv->reuses), qr/layer 1 tree 0 leaf 0 signed two different roots/, 'a forged layer-1 part is flagged by the parser');
    my $v = $k->{ledger}->add(sig => $forged, msg => slurp($a[0]{msg}), label => 'forged');
    is($v->{why}, 'does not verify', 'and refused by the verifying ledger');
};

# ---- crash points ----
# The steps of one run of `argv`; runs of one operation on one file (the cache's many pwrites) are
# kept as their first and last step: the steps between leave the same files behind.
my $trace = "$dir/trace.txt";
sub crash_steps {
    my ($argv, $env) = @_;
    unlink $trace;
    my $r = run_limited(300, $argv, env => { %$env, %{ fault_shim_env(KLMS_KILL_MATCH => $st, KLMS_KILL_TRACE => $trace) } });
    my @ops = map { (split / /, $_, 3)[2] } -e $trace ? split /\n/, slurp($trace) : ();
    unlink $trace;
    my @steps;
    for my $i (0 .. $#ops) {
        my $same_before = $i > 0 && $ops[$i - 1] eq $ops[$i];
        my $same_after = $i < $#ops && $ops[$i + 1] eq $ops[$i];
        push @steps, $i + 1 unless $same_before && $same_after;
    }
    return ($r, scalar @ops, @steps);
}

# The kills at kept step k: before it, and after it unless the next step is kept too and `after`
# is 'gaps' (a kill after step k leaves what a kill before step k + 1 leaves, minus what the
# process did between them without a durable step: at most writing its signature, so the kill
# before k + 1 is the harder case).
sub kill_positions {
    my ($step, $kept, $after) = @_;
    return (0, 1) if $after eq 'all' || !$kept->{ $step + 1 };
    return (0);
}

# The tree-building cases (~20 kept steps each) kill after a step only where the next one was
# dropped or is the last; KLMS_REUSE_XMSS_FULL=1 kills after every kept step.
# Sanitizer builds (every process several times slower) kill after a step only there too, as
# reuse_crash_points.t does: a kill after step k is otherwise close to one before step k + 1.
my $after_trees = $full ? 'all' : 'gaps';
my $after_plain = ($ENV{KLMS_SANITIZER_PRELOAD} && !$full) ? 'gaps' : 'all';
my @crash_ops = (
    ['XMSS sign', 'XMSS-SHA2_10_256', [], '', $after_plain],
    ['XMSS reserve:5', 'XMSS-SHA2_10_256', ['reserve:5'], '', $after_plain],
    ['XMSS sign, the tree cache rebuilt', 'XMSS-SHA2_10_256', [], 'nocache', $after_trees],
    ['XMSS^MT sign entering a new bottom tree', 'XMSSMT-SHA2_20/2_256', [], 'boundary', $after_trees],
    ($full ? (['XMSS^MT reserve:5', 'XMSSMT-SHA2_20/2_256', ['reserve:5'], '', 'all'],
              ['XMSS streaming (dgst -sign)', 'XMSS-SHA2_10_256', [], 'stream', 'all'],
              ['XMSS^MT 20/4 sign entering new trees on two layers', 'XMSSMT-SHA2_20/4_256', [], 'boundary', 'all']) : ()),
);
for my $op (@crash_ops) {
    my ($name, $set, $opts, $flag, $after_mode) = @$op;
    timed_subtest "SIGKILL before and after every step of: $name" => sub {
        my $k = new_key($set);
        my $prepare = sub {
            unlink glob("$k->{state}.cache*") if ($flag // '') eq 'nocache';
            if (($flag // '') eq 'boundary') {  # the next signature is the first of a bottom tree
                my $left = 1024 - ((($k->{ledger}->summary->{max_q} // -1) + 1) % 1024);  # 2^10: 20/2's bottom, 20/4's two lower layers
                sign_one($k, 'filler', "reserve:$left") if $left > 1 && $left < 1024;
                sign_one($k, 'filler') if $left == 1;
            }
        };
        $prepare->();
        my ($m0, $s0) = new_message("$name trace");
        my $argv = sub { my ($m, $s) = @_;
            return ($flag // '') eq 'stream' ? ('dgst', '-sign', $k->{key}, '-out', $s, $m) : sign_argv($k, $m, $s, @$opts) };
        my ($tr, $n, @steps) = crash_steps([$openssl, $argv->($m0, $s0)], {});
        is($tr->{status}, 0, "the trace run signs ($n steps, " . scalar(@steps) . ' kept)') or diag $tr->{err};
        ok(record($k, $s0, $m0, 'trace')->{ok}, 'its signature is counted');
        my @problems;
        my %kept = map { $_ => 1 } @steps;
        for my $step (@steps) {
            for my $after (kill_positions($step, \%kept, $after_mode)) {
                $prepare->();
                my $case = "step $step " . ($after ? 'after' : 'before');
                my $floor = $k->{ledger}->summary->{max_q};
                my ($m, $s) = new_message("$name $case");
                $totals{crash_points}++;
                my $r = run_limited(300, [$openssl, $argv->($m, $s)],
                                    env => fault_shim_env(KLMS_KILL_MATCH => $st, KLMS_KILL_AT => $step . ($after ? ':after' : '')));
                $totals{signers}++;
                $totals{kills}++ if $r->{killed};
                push @problems, "$case: hung" if $r->{hung};
                push @problems, "$case: not killed, status $r->{status} without a message" if !$r->{killed} && $r->{status} && $r->{err} !~ /\S/;
                my $partial = -s $s ? $k->{ledger}->prefix_q(slurp($s)) : undef;
                my $a = record($k, $s, $m, "killed at $case");
                if ($a && !$a->{ok}) {
                    push @problems, "$case: the killed process left a signature that $a->{why}" unless $a->{why} =~ /truncated/;
                    $k->{ledger}{rejected}--;
                }
                my $left = $a && $a->{ok} ? $a->{q} : $partial;
                $floor = $left if defined $left && (!defined $floor || $left > $floor);
                my $after_kill = sign_one($k, "$name $case, after the kill");
                if (!$after_kill->{ok}) {
                    push @problems, "$case: the signature after the kill: $after_kill->{why}"
                        unless $after_kill->{run}{status} && $after_kill->{run}{err} =~ /\S/ && !$after_kill->{run}{hung};
                    my ($reason) = $after_kill->{run}{err} =~ /error:[0-9A-Fa-f]+:[^:\n]*:[^:\n]*:([^:\n]+)/;
                    $k->{refusals}{ $reason // (split /\n/, $after_kill->{run}{err})[0] // '' }++;
                } elsif (defined $floor && $after_kill->{q} <= $floor) {
                    push @problems, "$case: the signature after the kill has index $after_kill->{q}, not beyond $floor";
                }
            }
        }
        problems_ok(\@problems, 'after every kill the key signed beyond every index that left a process');
        is($k->{ledger}->summary->{rejected}, 0, 'every complete signature verifies');
        ledger_ok($k->{ledger}, $name);
        note("refused after a kill: $_ ($k->{refusals}{$_} times)") for sort keys %{ $k->{refusals} // {} };
    };
}

# ---- signers at once, SIGKILLed at random ----
timed_subtest 'XMSS^MT: signers at once (pkeyutl, dgst, klms-evp-signer), SIGKILLed at random' => sub {
    my $k = new_key('XMSSMT-SHA2_20/2_256');
    my $out = "$dir/concurrent";
    mkdir $out, 0700 or die;
    my $signer = tool('klms-evp-signer');
    my ($started, $kills, %running, @unexpected) = (0, 0);
    my $t0 = time;
    while (1) {
        while ($started < 24 && keys(%running) < 4) {
            my $n = ++$started;
            my $argv;
            if ($n % 3 == 0) {
                spew("$out/msg-cli$n.bin", "cli signer $n\n");
                $argv = $n % 2 ? [$openssl, sign_argv($k, "$out/msg-cli$n.bin", "$out/sig-cli$n.tmp")]
                               : [$openssl, 'dgst', '-sign', $k->{key}, '-out', "$out/sig-cli$n.tmp", "$out/msg-cli$n.bin"];
            } else {
                $argv = [$signer, '--key', $k->{key}, '--message', "signer $n", '--unique-messages', '--out-dir', $out,
                         '--count', 1 + $n % 5, '--threads', 1 + $n % 3, '--reserve', (1, 3, 8)[$n % 3], '--delay-us', 500,
                         ($n % 4 == 1 ? ('--streaming', '--chunk', 7) : ())];
            }
            my $pid = spawn_cmd($argv, err => "$dir/err$n");
            $running{$pid} = { n => $n, cli => $n % 3 == 0, deadline => $n % 4 ? time + rand(0.3) : undef };
        }
        last if !%running || time - $t0 > 60;
        sleep 0.005;
        for my $pid (keys %running) {
            my $run = $running{$pid};
            my $how;
            if (waitpid($pid, WNOHANG) == $pid) {
                $how = 'exited';
                push @unexpected, "signer $run->{n} exited with $?: " . slurp("$dir/err$run->{n}") if $?;
            } elsif (defined $run->{deadline} && time >= $run->{deadline}) {
                kill 'KILL', $pid;
                waitpid($pid, 0);
                $how = ($? & 127) == 9 ? 'killed' : 'exited';
                $kills++ if $how eq 'killed';
            } else {
                next;
            }
            my $tmp = "$out/sig-cli$run->{n}.tmp";
            if ($run->{cli} && -e $tmp) { rename $tmp, $how eq 'exited' ? "$out/sig-cli$run->{n}.bin" : "$out/partial-cli$run->{n}.bin" }
            delete $running{$pid};
        }
    }
    $totals{signers} += $started;
    $totals{kills} += $kills;
    for my $s (glob("$out/sig-*.bin")) {
        (my $m = $s) =~ s{/sig-([^/]*)\z}{/msg-$1};
        $k->{ledger}->add(sig => slurp($s), msg => slurp($m), label => $s);
    }
    my $max = $k->{ledger}->summary->{max_q};
    for my $p (glob("$out/partial-*.bin")) {
        my $q = $k->{ledger}->prefix_q(slurp($p));
        $max = $q if defined $q && (!defined $max || $q > $max);
    }
    is_deeply(\@unexpected, [], 'no signer failed except by its kill');
    cmp_ok($k->{ledger}->summary->{signatures}, '>=', 10, "signatures left the processes ($kills killed of $started)");
    is($k->{ledger}->summary->{rejected}, 0, 'every one verifies');
    my $after = sign_one($k, 'after the storm');
    ok($after->{ok} && $after->{q} > $max, "a signature afterwards is beyond every index used ($after->{q} > $max)");
    ledger_ok($k->{ledger}, 'signers at once');
};

timed_subtest 'XMSS^MT: a lease (klms-state lease) and its parent sign side by side across bottom trees' => sub {
    my $k = new_key('XMSSMT-SHA2_20/4_256');
    sign_one($k, 'parent first', 'reserve:28');
    my $lease = "$st/lease-$keyno.state";
    my $r = run_limited(60, [$state_tool, 'lease', '--count', 40, $k->{state}, $lease]);
    is($r->{status}, 0, 'klms-state lease --count 40: indices 28 to 67') or diag $r->{err};
    my (@pids, @files);
    for my $who (['parent', []], ['lease', ["state-file:$lease"]]) {
        my ($name, $opts) = @$who;
        for my $i (1 .. 6) {
            my ($m, $s) = new_message("$name $i");
            push @files, [$s, $m, "$name $i"];
        }
    }
    # Both signers at once, each its six signatures in one process chain.
    for my $half ([0 .. 5, 'parent'], [6 .. 11, 'lease']) {
        my $who = pop @$half;
        my @cmds = map { join(' ', map { quotemeta } $openssl, sign_argv($k, $files[$_][1], $files[$_][0],
                                                                          $who eq 'lease' ? ("state-file:$lease") : ())) } @$half;
        push @pids, spawn_cmd(['sh', '-c', join(' && ', @cmds)], err => "$dir/lease-$who.err");
    }
    waitpid($_, 0) for @pids;
    $k->{ledger}->add(sig => slurp($_->[0]), msg => slurp($_->[1]), label => $_->[2]) for grep { -s $_->[0] } @files;
    is($k->{ledger}->summary->{signatures}, 13, 'all thirteen signed') or diag map { -e $_ ? slurp($_) : '' } glob("$dir/lease-*.err");
    is_deeply([sort { $a <=> $b } map { ($k->{ledger}->parse(slurp($_->[0]), ''))[1] } @files[0, 5, 6, 11]], [28, 33, 68, 73],
              'the lease signed 28-33 and the parent 68-73: each across a bottom tree');
    is($k->{ledger}->summary->{rejected}, 0, 'every one verifies');
    ledger_ok($k->{ledger}, 'lease and parent');
};

timed_subtest 'XMSS: fork and clone at every point of the EVP signing sequence (klms-reuse-dup)' => sub {
    my $dup = tool('klms-reuse-dup');
    my @cases = grep { length } split /\n/, run_limited(60, [$dup, '--list'])->{out};
    @cases = grep { /^(fork|clone)_(after_update|mid_reservation|lease_copy|pkey_ctx_dup|thread_mid_stream)$/ } @cases unless $full;
    cmp_ok(scalar @cases, '>=', 10, scalar(@cases) . ' cases');
    for my $case (@cases) {
        my $k = new_key('XMSS-SHA2_10_256', verify_mode => $case =~ /thread/ ? 'collisions' : 'all');
        my $out = "$dir/dup-$case";
        mkdir $out, 0700 or die;
        my $r = run_limited(180, [$dup, '--key', $k->{key}, '--out', $out, '--case', $case]);
        my @lines = split /\n/, $r->{out};
        $k->{ledger}->add(sig => slurp($_), msg => slurp(s/\.sig\z/.msg/r), label => $_) for sort glob("$out/*.sig");
        $totals{signers} += @lines;
        my @bad = grep { / died: | refused: \(no error/ } @lines;
        ok($r->{status} == 0 && !@bad && $k->{ledger}->summary->{signatures} >= 1 && !$k->{ledger}->summary->{rejected},
           "$case: ran, " . $k->{ledger}->summary->{signatures} . ' signatures verify, no process hung or died, refusals clear')
            or diag "$r->{err}\n" . join("\n", @lines);
        ledger_ok($k->{ledger}, $case);
    }
};

# ---- the rollback matrix with a TPM witness ----
SKIP: {
    unless (SwTpm::available()) {
        BAIL_OUT('swtpm / tpm2-tools not installed (scripts/install-deps.sh installs them)') if $ENV{CI};
        skip 'swtpm / tpm2-tools not installed: the witness cannot be tested here', 1;
    }
    my $tpm = SwTpm->start($dir);
    for my $set (qw(XMSS-SHA2_10_256 XMSSMT-SHA2_20/2_256)) {
        timed_subtest "$set, TPM witness: the state file copied back from every earlier moment" => sub {
            my $d = "$dir/tpm-$keyno";
            mkdir $d, 0700 or die;
            my $k = new_key($set, dir => $d, pkeyopt => ['witness:tpm'], env => $tpm->env);
            # A snapshot is the state file and its tree caches, as a disk image or a backup of the
            # directory holds them; XMSS^MT enters its second bottom tree between snapshots 2 and 3, so
            # older snapshots bring back the first bottom tree's cache.
            my $mt = $set =~ /^XMSSMT/;
            for my $i (0 .. 5) {
                mkdir "$d/snap$i", 0700 or die;
                copy($_, "$d/snap$i/" . (split m{/}, $_)[-1]) or die for glob("$k->{state}*");
                my @opts = $i == 3 ? ('reserve:3') : $mt && $i == 2 ? ('reserve:1022') : ();
                my $a = sign_one($k, "before snapshot " . ($i + 1), @opts);
                ok($a->{ok}, "signature $i") or diag $a->{why};
            }
            cmp_ok($k->{ledger}->summary->{max_q}, '>=', 1024, 'the snapshots span two bottom trees') if $mt;
            my (@problems, %outcomes);
            # Newest to oldest, then the oldest again once the key has signed past it. A refused copy
            # is resynced (klms-state resync, docs/state-file-guide.md) and must then sign beyond.
            for my $i (reverse(0 .. 5), 0) {
                my $max = $k->{ledger}->summary->{max_q};
                copy($_, "$d/" . (split m{/}, $_)[-1]) or die for glob("$d/snap$i/*");  # in place, as cp does
                my $a = sign_one($k, "after restoring snapshot $i");
                if (!$a->{ok}) {
                    my ($reason) = $a->{run}{err} =~ /error:[0-9A-Fa-f]+:[^:\n]*:[^:\n]*:([^:\n]+)/;
                    $outcomes{'refused: ' . ($reason // (split /\n/, $a->{run}{err})[0] // '')}++;
                    push @problems, "snapshot $i: refused without a message" unless $a->{run}{err} =~ /\S/;
                    my $r = run_limited(60, [$state_tool, 'resync', $k->{state}], env => $tpm->env);
                    push @problems, "snapshot $i: klms-state resync: $r->{err}" if $r->{status} != 0;
                    $a = sign_one($k, "after restoring snapshot $i and resync");
                    push @problems, "snapshot $i: after resync: $a->{why}" unless $a->{ok};
                }
                next unless $a->{ok};
                $outcomes{'signed'}++;
                push @problems, "snapshot $i: signed index $a->{q}, not beyond $max" if $a->{q} <= $max;
            }
            problems_ok(\@problems, 'every restored copy refused or signed beyond every used index');
            note("$_: $outcomes{$_}") for sort keys %outcomes;
            is($k->{ledger}->summary->{rejected}, 0, 'every signature verifies');
            ledger_ok($k->{ledger}, "$set rollback");
        };
    }
    $tpm->stop;
}

# ---- the fleet: two hosts share an XMSS key through etcd ----
SKIP: {
    unless (EtcdCluster::available()) {
        BAIL_OUT('etcd / etcdctl not installed (scripts/install-deps.sh installs etcd-server etcd-client)') if $ENV{CI};
        skip 'etcd not installed (scripts/install-deps.sh)', 1;
    }
    timed_subtest 'XMSS^MT fleet: two hosts, one key, a 3-member etcd, blocks of 8 across bottom trees' => sub {
        mkdir "$dir/$_", 0700 for qw(etcd fleet);
        my $cluster = EtcdCluster->start(dir => "$dir/etcd", members => 3);
        my $env = { %{ $cluster->env }, KLMS_ETCD_BLOCK => '8' };
        my @state = map { mkdir "$dir/host$_", 0700; "$dir/host$_/k.state" } 1, 2;
        my $key = "$dir/fleet.pem";
        # 20/4: bottom trees of 32 leaves, so the hosts' blocks of 8 cross them.
        my $g = xmss_key($key, $state[0], 'XMSSMT-SHA2_20/4_256', 'witness:etcd', { env => $env });
        is($g->{status}, 0, 'genpkey -pkeyopt witness:etcd') or diag $g->{err};
        my $pub = pubout($key);
        my $j = run_limited(60, [$state_tool, 'join', $pub, $state[1]], env => $env);
        is($j->{status}, 0, 'klms-state join: host 2') or diag $j->{err};
        my $f = run_fleet(hosts => 2, per_host => 18, dir => "$dir/fleet", timeout => 120, command_timeout => 60, kills => 2,
                          seed => 29, kill_after_ms => [0, 60], command => sub {
            my ($host, $i) = @_;
            my $m = "$dir/fleet/h$host-$i.msg";
            spew($m, "host $host message $i\n");
            return { argv => [$openssl, 'pkeyutl', '-sign', '-rawin', '-inkey', $key, '-in', $m, '-out', "$m.sig",
                              '-pkeyopt', "state-file:$state[$host - 1]"], env => $env, sig => "$m.sig", msg => $m };
        });
        my $l = fleet_ledger(pub => $pub, sigs => fleet_sigs($f));
        $totals{signers} += @{ $f->{runs} };
        cmp_ok($l->{signatures}, '>=', 8, 'the hosts signed') or diag join "\n", map { "h$_->{host}/s$_->{seq}: $_->{err}" } grep { $_->{status} } @{ $f->{runs} };
        is(scalar @{ $l->{rejected} }, 0, 'every signature verifies') or diag join "\n", @{ $l->{rejected} };
        is($f->{hung}, 0, 'nothing hung');
        cmp_ok($l->{ledger}->summary->{max_q}, '>=', 32, 'the hosts crossed into another bottom tree');
        fleet_ledger_ok($l, 'XMSS^MT fleet');
        push @ledgers, $l->{ledger};
        $cluster->stop;
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
