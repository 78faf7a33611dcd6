# The rollback matrix, continued (docs/state.md "One binding, one name", docs/backup.md): the
# sequences in which a TPM counter's name could not tell two klms bindings apart, each with real
# swtpms (one per host, started and stopped here) and judged by the independent ledger
# (test/support/Ledger.pm, every signature verified by the real openssl): no index twice.
#
# Cases: a record restored on a new host, then the archived record restored again there (while the
# first restore's file lives, and after the host is re-imaged with its TPM kept); the TPM cleared,
# the documented recovery, the archived record restored again, and the original file coming back;
# `klms-state retire` run twice while another key took the freed handle; a VM snapshot taken with its
# vTPM and reverted (resync asks for a mark); a counter bound before per-binding policies (flagged by
# show, re-bound by adopt and by resync); a pending gap larger than the file's last write.
# Cost: about 10-20 s (a dozen H5 keys, four swtpms).
use strict;
use warnings;
use Test::More;
use File::Copy qw(copy);
use File::Path qw(remove_tree);
use Digest::SHA qw(sha256 hmac_sha256);
use KlmsTest qw(:DEFAULT :cli);
use ReuseTest;
use SwTpm;
use WitnessTest;

unless (SwTpm::available()) {
    BAIL_OUT('swtpm / tpm2-tools not installed (scripts/install-deps.sh installs them)') if $ENV{CI};
    plan skip_all => 'swtpm / tpm2-tools not installed: the witness cannot be tested here';
}

my $dir = private_dir();
my %tpms;
sub host_tpm { my ($name) = @_; mkdir "$dir/$name", 0700; return $tpms{$name} = SwTpm->start("$dir/$name") }
my $tpm = host_tpm('shared');
my $w = WitnessTest->new(dir => $dir, tpm => $tpm);

sub new_dir { my ($name) = @_; my $d = "$dir/$name"; mkdir $d, 0700 or die "$d: $!"; return $d }

# ---- a record restored on a new host, then the archived record restored again on that host ----
{
    my $host_a = host_tpm('host-a');
    my $k = $w->new_key(tpm => $host_a, dir => new_dir('a'));
    $w->signs_ok($k, 2, 'host A', tpm => $host_a);
    is($w->klms_state_on($host_a, 'backup', $k->{state}, "$k->{dir}/record")->{status}, 0, 'host A: klms-state backup');
    $w->signs_ok($k, 2, 'host A, after the backup', tpm => $host_a);
    my $last = $k->{last_sig};
    $host_a->stop;  # host A is lost; the record, the key and the last signature are in the archive

    my $host_b = host_tpm('host-b');
    my $b = new_dir('b');
    my $r = $w->klms_state_on($host_b, 'restore', '--after-signature', $last, "$k->{dir}/record", "$b/k.state");
    is($r->{status}, 0, 'host B: restore --after-signature, as docs/backup.md says') or diag($r->{err});
    my $a = $w->klms_state_on($host_b, 'adopt', '--witness', 'tpm', '--yes-i-destroyed-the-original', "$b/k.state");
    is($a->{status}, 0, 'host B: adopt --witness tpm') or diag($a->{err});
    $w->signs_ok($k, 2, 'host B', tpm => $host_b, state => "$b/k.state");

    # The archived record again, on host B, while host B's file lives: it names host A's counter.
    my $again = $w->klms_state_on($host_b, 'restore', "$k->{dir}/record", "$b/k2.state");
    isnt($again->{status}, 0, "host B: the archived record restored again without a mark is refused (host A's counter is not here)");
    $w->try_sign($k, tpm => $host_b, state => "$b/k2.state", label => 'host B, second restore') if -e "$b/k2.state";
    $w->signs_ok($k, 1, 'host B: its own file signs on', tpm => $host_b, state => "$b/k.state");

    # Host B re-imaged with its TPM kept: its state directory (file and secret) is gone.
    my $own = "$dir/b-own.record";
    is($w->klms_state_on($host_b, 'backup', "$b/k.state", $own)->{status}, 0, "host B: a record of its own file");
    remove_tree($b);
    new_dir('b');
    my $reimaged = $w->klms_state_on($host_b, 'restore', "$k->{dir}/record", "$b/k.state");
    isnt($reimaged->{status}, 0, 'host B re-imaged: the archived record of host A is refused without a mark');
    $w->try_sign($k, tpm => $host_b, state => "$b/k.state", label => 're-imaged, archived record') if -e "$b/k.state";
    unlink "$b/k.state";
    # Its own record finds its own counter (read with owner authorization: the secret went with the
    # image) and says the file cannot sign until the secret is back or adopt re-binds it.
    my $mine = $w->klms_state_on($host_b, 'restore', $own, "$b/k.state");
    is($mine->{status}, 0, "host B re-imaged: its own record lands past its own counter") or diag($mine->{err});
    like($mine->{err}, qr/no klms-witness\.secret.*cannot sign/s, 'restore warns: no witness secret in the target directory');
    like($w->klms_state_on($host_b, 'show', "$b/k.state")->{out}, qr/witness read as:\s+owner/, 'show says the counter was read with owner authorization');
    my $re = $w->klms_state_on($host_b, 'adopt', '--yes-i-destroyed-the-original', "$b/k.state");
    is($re->{status}, 0, 'host B re-imaged: adopt re-binds to a new counter') or diag($re->{err});
    $w->signs_ok($k, 2, 'host B re-imaged, re-bound', tpm => $host_b, state => "$b/k.state");
    ledger_ok($k->{ledger}, 'restore after restore');
    $host_b->stop;
}

# ---- the TPM cleared; the documented recovery; the archived record and the original file come back ----
{
    my $t = host_tpm('cleared');
    my $k = $w->new_key(tpm => $t, dir => new_dir('c'));
    $w->signs_ok($k, 1, 'clear', tpm => $t);
    is($w->klms_state_on($t, 'backup', $k->{state}, "$k->{dir}/record")->{status}, 0, 'clear: an archived record');
    $w->signs_ok($k, 2, 'clear, after the record', tpm => $t);
    my $last = $k->{last_sig};
    my $index = ($w->klms_state_on($t, 'show', $k->{state})->{out} =~ /tpm counter (0x[0-9a-f]{8})/)[0];
    my $before = $w->tpm2($t, 'tpm2_nvread', '-C', 'o', '-s', '8', $index);
    my $cleared = $w->tpm2($t, 'tpm2_clear', '-c', 'l');
    is($cleared->{status}, 0, 'tpm2_clear with the empty lockout authorization') or diag($cleared->{err});
    # What swtpm's counters read after a clear (earlier measurements disagreed): a counter defined
    # afterwards starts from the highest value that reached NV before — a counter the clear removed
    # counts only where it was undefined or written to NV first. Recorded here; the witness does not
    # depend on it (its name is the binding's, whatever the value).
    my $probe = '0x01500000';
    $w->tpm2($t, 'tpm2_nvdefine', $probe, '-C', 'o', '-s', '8', '-a', 'nt=counter|ownerread|ownerwrite');
    $w->tpm2($t, 'tpm2_nvincrement', '-C', 'o', $probe);
    my $after = $w->tpm2($t, 'tpm2_nvread', '-C', 'o', '-s', '8', $probe);
    $w->tpm2($t, 'tpm2_nvundefine', '-C', 'o', $probe);
    my ($v0, $v1) = map { unpack('Q>', $_->{out} . ("\0" x 8)) } $before, $after;
    note("swtpm: klms counter before tpm2_clear $v0; a counter defined after it reads $v1 at its first increment");
    cmp_ok($v1, '<=', $v0, "recorded: after tpm2_clear a new counter starts at or below the cleared one's value ($v1 <= $v0)");

    my $refused = $w->try_sign($k, tpm => $t, label => 'cleared: the original file');
    isnt($refused->{status}, 0, 'clear: the original file is refused (its counter is gone)');
    # The documented recovery (docs/backup.md "Restoring on a new host (or after losing the TPM)").
    my $r = $w->klms_state_on($t, 'restore', '--after-signature', $last, "$k->{dir}/record", "$k->{dir}/k2.state");
    is($r->{status}, 0, 'clear: restore --after-signature') or diag($r->{err});
    is($w->klms_state_on($t, 'adopt', '--witness', 'tpm', '--yes-i-destroyed-the-original', "$k->{dir}/k2.state")->{status}, 0,
       'clear: adopt --witness tpm binds a new counter');
    $w->signs_ok($k, 2, 'clear: the recovered file', tpm => $t, state => "$k->{dir}/k2.state");
    # The archived record restored again later, without a mark: its counter is not the new one.
    my $again = $w->klms_state_on($t, 'restore', "$k->{dir}/record", "$k->{dir}/k3.state");
    isnt($again->{status}, 0, 'clear: the archived record restored again without a mark is refused');
    $w->try_sign($k, tpm => $t, state => "$k->{dir}/k3.state", label => 'clear: archived record') if -e "$k->{dir}/k3.state";
    # The original file, refused as "witness missing" until now, finds a counter at its index again.
    my $orig = $w->try_sign($k, tpm => $t, label => 'clear: the original file again');
    isnt($orig->{status}, 0, 'clear: the original file stays refused (the new counter is not its binding)');
    like($orig->{err}, qr/not the one this state file is bound to|does not exist/, 'clear: refused by name');
    $w->signs_ok($k, 1, 'clear: the recovered file signs on', tpm => $t, state => "$k->{dir}/k2.state");
    ledger_ok($k->{ledger}, 'TPM cleared');
    $t->stop;
}

# ---- klms-state retire run twice, another key having taken the freed handle ----
{
    my $d = new_dir('retire');
    my $k1 = $w->new_key(dir => $d, name => 'one');
    $w->signs_ok($k1, 1, 'retire twice: key one');
    my $index = ($w->klms_state('show', $k1->{state})->{out} =~ /tpm counter (0x[0-9a-f]{8})/)[0];
    is($w->klms_state('retire', '--yes', $k1->{state})->{status}, 0, 'retire twice: the first retire');
    my $k2 = $w->new_key(dir => $d, name => 'two');
    my $show2 = $w->klms_state('show', $k2->{state})->{out};
    my $index2 = ($show2 =~ /tpm counter (0x[0-9a-f]{8})/)[0];
    is($index2, $index, "retire twice: key two's counter took the freed handle ($index)");
    $w->signs_ok($k2, 1, 'retire twice: key two');
    my $again = $w->klms_state('retire', '--yes', $k1->{state});
    is($again->{status}, 0, 'retire twice: the second retire succeeds') or diag($again->{err});
    like($again->{err}, qr/released already.*another counter.*left alone/s, 'the second retire says the other counter was left alone');
    my $show1 = $w->klms_state('show', $k1->{state})->{out};
    unlike($show1, qr/witness state:\s+(agrees|BEHIND|pending)/, "show of the retired key never reports key two's counter as its own");
    like($show1, qr/witness state:\s+released/, 'show: the retired key says its counter is released');
    my $s = $w->try_sign($k2, label => 'retire twice: key two after');
    is($s->{status}, 0, "key two still signs: its counter was not undefined") or diag($s->{err});
    ledger_ok($k2->{ledger}, 'retire twice');
}

# ---- a VM snapshot with its vTPM, reverted: the counter rolls back with the file ----
{
    my $v = host_tpm('vtpm');
    my $k = $w->new_key(tpm => $v, dir => new_dir('vm'), lms => 'LMS_SHA256_M32_H10');
    $w->signs_ok($k, 2, 'vTPM', tpm => $v);
    # A crash-consistent snapshot of the running VM: its disk and its vTPM's state, as they are.
    my $snap = "$dir/vm-snapshot";
    system('cp', '-a', "$k->{dir}/k.state", "$snap.state") == 0 or die;
    system('cp', '-a', "$dir/vtpm/tpm-state", "$snap.tpm") == 0 or die;
    # The timeline the revert discards: one reservation of 300, then one more signature.
    $w->signs_ok($k, 1, 'vTPM, discarded timeline (reserve:300)', tpm => $v, pkeyopt => ['reserve:300']);
    my ($discarded) = $w->signs_ok($k, 1, 'vTPM, discarded timeline', tpm => $v);
    my $discarded_sig = $k->{last_sig};
    # The revert: the VM (and its vTPM) back to the snapshot.
    $v->crash;
    remove_tree("$dir/vtpm/tpm-state");
    system('cp', '-a', "$snap.tpm", "$dir/vtpm/tpm-state") == 0 or die;
    system('cp', "$snap.state", $k->{state}) == 0 or die;  # in place: the disk is the snapshot's
    $v->start_again;
    my $r = $w->try_sign($k, tpm => $v, label => 'vTPM reverted');
    isnt($r->{status}, 0, 'vTPM reverted: the file is refused (behind: the vTPM restarted uncleanly)');
    like($w->klms_state_on($v, 'show', $k->{state})->{out}, qr/BEHIND.*virtual TPM/s, 'show: behind, and it may be a vTPM rollback');
    my $plain = $w->klms_state_on($v, 'resync', $k->{state});
    isnt($plain->{status}, 0, 'vTPM reverted: resync without a mark is refused');
    like($plain->{err}, qr/virtual TPM.*--after-signature/s, 'resync says the gap may be a vTPM rollback and asks for a mark');
    my $marked = $w->klms_state_on($v, 'resync', '--after-signature', $discarded_sig, $k->{state});
    is($marked->{status}, 0, 'resync --after-signature the last signature of the discarded timeline') or diag($marked->{err});
    # Try hardest: jump straight to the discarded timeline's last index if resync left anything below it.
    my $next = ($w->klms_state_on($v, 'show', $k->{state})->{out} =~ /next index:\s+(\d+)/)[0] // 0;
    $w->sign($k, tpm => $v, pkeyopt => ['reserve:' . ($discarded - $next)]) if $next < $discarded;
    $w->signs_ok($k, 2, 'vTPM reverted, after resync', tpm => $v);
    ledger_ok($k->{ledger}, 'vTPM snapshot reverted');
    $v->stop;
}

# ---- a counter bound before per-binding policies: flagged by show, re-bound by adopt and resync ----
# The binding an older build made, reproduced with tpm2-tools: an NV counter without authPolicy
# whose authorization is the directory's HMAC (docs/state.md "Who may advance a counter"), and the
# state file's record rewritten as kind 1 (state/file_format.h) over it.
sub make_legacy {
    my ($k, $handle) = @_;
    my $secret = slurp("$k->{dir}/klms-witness.secret");
    my $key_id = pack('H*', ($w->klms_state('show', $k->{state})->{out} =~ /key id:\s+([0-9a-f]{64})/)[0]);
    my $auth = unpack('H*', hmac_sha256('klms tpm counter' . $key_id, $secret));
    my $def = $w->tpm2($tpm, 'tpm2_nvdefine', $handle, '-C', 'o', '-s', '8', '-a',
                       'nt=counter|authwrite|authread|ownerread|no_da|orderly', '-p', "hex:$auth");
    die "nvdefine: $def->{err}" if $def->{status} != 0;
    $w->tpm2($tpm, 'tpm2_nvincrement', $handle, '-P', "hex:$auth")->{status} == 0 or die 'nvincrement';
    my $value = unpack('Q>', $w->tpm2($tpm, 'tpm2_nvread', '-C', 'o', '-s', '8', $handle)->{out});
    my ($name) = $w->tpm2($tpm, 'tpm2_nvreadpublic', $handle)->{out} =~ /name:\s*([0-9a-f]+)/;
    my $data = slurp($k->{state});
    for my $b (0, 1) {
        my $block = substr($data, 4096 * $b, 4096);
        my $next = unpack('Q<', substr($block, 24, 8));
        substr($block, 280, 48) = pack('L<L<Q<', 1, hex($handle), ($value - $next) % 2**64) . sha256(pack('H*', $name));
        substr($block, 328, 32) = sha256(substr($block, 0, 328));
        substr($block, 360, 48) = "\0" x 48;  # no kind-3 extension
        substr($data, 4096 * $b, 4096) = $block;
    }
    open my $fh, '+<', $k->{state} or die;
    binmode $fh;
    syswrite $fh, $data;
    close $fh;
}
{
    my $k = $w->new_key();
    $w->signs_ok($k, 2, 'legacy');
    my $old_index = ($w->klms_state('show', $k->{state})->{out} =~ /tpm counter (0x[0-9a-f]{8})/)[0];
    make_legacy($k, '0x01384cf0');
    $w->tpm2($tpm, 'tpm2_nvundefine', '-C', 'o', $old_index);
    my $show = $w->klms_state('show', $k->{state})->{out};
    like($show, qr/tpm counter 0x01384cf0 \(bound before per-binding counter policies/, 'show flags a counter bound before per-binding policies');
    $w->signs_ok($k, 1, 'legacy: it signs on');
    my $a = $w->klms_state('adopt', '--yes-i-destroyed-the-original', $k->{state});
    is($a->{status}, 0, 'adopt re-binds it') or diag($a->{err});
    my $after = $w->klms_state('show', $k->{state})->{out};
    unlike($after, qr/bound before per-binding/, 'adopt: a counter with a per-binding policy now');
    isnt($w->tpm2($tpm, 'tpm2_nvreadpublic', '0x01384cf0')->{status}, 0, 'adopt: the old counter is undefined');
    like($after, qr/next index:\s+3\n/, 'adopt: next index kept');
    $w->signs_ok($k, 2, 'legacy, re-bound by adopt');

    make_legacy($k, '0x01384cf1');
    my $rs = $w->klms_state('resync', $k->{state});
    is($rs->{status}, 0, 'resync re-binds a counter bound before per-binding policies') or diag($rs->{err});
    like($rs->{err}, qr/bound to a new TPM counter 0x[0-9a-f]{8} \(the old one was bound before per-binding policies; it was undefined\)/,
         'resync says it re-bound the counter');
    unlike($w->klms_state('show', $k->{state})->{out}, qr/bound before per-binding/, 'resync: a per-binding counter now');
    isnt($w->tpm2($tpm, 'tpm2_nvreadpublic', '0x01384cf1')->{status}, 0, 'resync: the old counter is undefined');
    $w->signs_ok($k, 1, 'legacy, re-bound by resync');
    ledger_ok($k->{ledger}, 'legacy bindings');
}

# ---- a pending gap larger than the file's last write: not this file's history ----
{
    my $k = $w->new_key();
    $w->signs_ok($k, 2, 'gap');
    # The record's base lowered by 5: the counter now reads 5 behind the file, where the last write
    # (one signature) explains at most 1.
    my $data = slurp($k->{state});
    for my $b (0, 1) {
        my $block = substr($data, 4096 * $b, 4096);
        is(unpack('L<', substr($block, 280, 4)), 3, "block $b: a per-binding TPM record (kind 3)");
        is(unpack('Q<', substr($block, 360, 8)), 1, "block $b: last reservation 1 recorded");
        substr($block, 288, 8) = pack('Q<', (unpack('Q<', substr($block, 288, 8)) + 5) % 2**64);
        substr($block, 328, 32) = sha256(substr($block, 0, 328));
        substr($block, 376, 32) = sha256(substr($block, 0, 376));
        substr($data, 4096 * $b, 4096) = $block;
    }
    open my $fh, '+<', $k->{state} or die;
    binmode $fh;
    syswrite $fh, $data;
    close $fh;
    my $r = $w->try_sign($k, label => 'gap of 5');
    isnt($r->{status}, 0, 'a pending gap of 5 after a write of 1 is refused, never completed');
    like($r->{err}, qr/not the one this state file is bound to/, 'refused as another counter');
    ledger_ok($k->{ledger}, 'pending gap');
}

$_->stop for values %tpms;
done_testing();
