# The rollback matrix (docs/state.md "The witness", docs/backup.md): every way a signing host's
# state file is rolled back, each with a TPM-witnessed key (a real swtpm, started and stopped here)
# and, where the case is the documented limit of an unwitnessed key, without one. Judged by the
# independent ledger (test/support/Ledger.pm, every signature verified by the real openssl): with a
# witness no one-time key signs twice, whatever is restored; without one the undetectable cases
# are asserted as documented (the ledger finds the reuse).
#
# Cases: the whole file copied over the live one; one block restored from an older copy; the file
# restored after an orderly TPM restart; an overlayfs image layer used by two "containers" in turn
# and a loop-device ext4 image copied back (root only: CI runs as root; elsewhere they say why);
# the TPM unreachable (swtpm stopped, and swtpm that answers nothing: a deadline); swtpm killed
# during a reservation's increments; swtpm restarted without an orderly shutdown (the orderly
# counter jumps); another uid cannot advance the counter; backup and restore end to end; a lease
# of a witnessed key needs a witness of its own; retire releases the counter.
use strict;
use warnings;
use Test::More;
use File::Copy qw(copy);
use Time::HiRes qw(time usleep);
use KlmsTest;
use ReuseTest;
use SwTpm;

unless (SwTpm::available()) {
    # CI installs swtpm (scripts/install-deps.sh): there a missing one is a failure, not a skip.
    BAIL_OUT('swtpm / tpm2-tools not installed (scripts/install-deps.sh installs them)') if $ENV{CI};
    plan skip_all => 'swtpm / tpm2-tools not installed: the witness cannot be tested here';
}

my $dir = private_dir();
my $tpm = SwTpm->start($dir);
my $state_tool = tool('klms-state');
my $n = 0;

sub msg { my $i = ++$n; my $m = "$dir/m$i.msg"; spew($m, "firmware image $i\n" . ('x' x $i)); return $m }

# A key in a private directory of its own: { dir, key, state, pub, ledger }.
sub new_key {
    my (%o) = @_;
    my $d = $o{dir} // do { my $x = "$dir/key" . ++$n; mkdir $x, 0700 or die; $x };
    my $k = { dir => $d, key => "$d/k.pem", state => "$d/k.state" };
    my @w = ($o{witness} // 'tpm') eq 'none' ? ('witness:none') : ('witness:tpm');
    my $r = hss_key($k->{key}, $k->{state}, $o{lms} // 'LMS_SHA256_M32_H5', 'LMOTS_SHA256_N32_W8', @w,
                    { env => $tpm->env });
    die "genpkey: $r->{err}" if $r->{status} != 0;
    $k->{pub} = pubout($k->{key});
    $k->{ledger} = reuse_ledger($k->{pub});
    return $k;
}

# Signs one new message; the signature (if any) goes to the key's ledger. The result of state_sign.
sub sign {
    my ($k, %o) = @_;
    my $m = msg();
    my $r = state_sign(key => $k->{key}, in => $m, out => "$m.sig", pkeyopt => $o{pkeyopt} // [],
                       env => { %{ $tpm->env }, %{ $o{env} // {} } });
    if ($r->{status} == 0) {
        $k->{last_sig} = "$m.sig";
        my $a = $k->{ledger}->add(sig => $r->{sig}, msg => slurp($m), label => $m);
        $r->{q} = $a->{q};
        $r->{counted} = $a->{ok};
    }
    return $r;
}

sub signs_ok {
    my ($k, $count, $name) = @_;
    my @q;
    for (1 .. $count) {
        my $r = sign($k);
        return fail("$name: signature $_: $r->{err}") if $r->{status} != 0 || !$r->{counted};
        push @q, $r->{q};
    }
    pass("$name: $count signatures (q = @q)");
    return @q;
}

sub tool_run { my @a = @_; return run_limited(120, [$state_tool, @a], env => $tpm->env, stdin => '') }

sub refused_behind {
    my ($k, $name) = @_;
    my $before = slurp($k->{state});
    my $r = sign($k);
    isnt($r->{status}, 0, "$name: the rolled-back file signs nothing");
    like($r->{err}, qr/behind its witness/, "$name: refused by name (state file behind its witness)");
    is(slurp($k->{state}), $before, "$name: the refusal wrote nothing");
}

sub resync_ok {
    my ($k, $name, @flags) = @_;
    my $r = tool_run('resync', @flags, $k->{state});
    is($r->{status}, 0, "$name: klms-state resync @flags") or diag($r->{err});
    like($r->{err}, qr/indices skipped/, "$name: resync says how many indices it skipped");
}

# After a TPM restart a plain resync asks for a mark (a vTPM may have been rolled back with its VM:
# docs/backup.md "Virtual TPMs"); a hardware TPM's operator says --tpm-not-rolled-back.
sub resync_after_restart_ok {
    my ($k, $name) = @_;
    my $plain = tool_run('resync', $k->{state});
    isnt($plain->{status}, 0, "$name: resync without a mark after a TPM restart is refused");
    like($plain->{err}, qr/virtual TPM/, "$name: ... and says the gap may be a vTPM rollback");
    resync_ok($k, $name, '--tpm-not-rolled-back');
}

# ---- what a process loads: nothing of the TPM stack without a TPM witness; no libcrypto with it ----
{
    my $plain = new_key(witness => 'none');
    my $m = msg();
    my $r = run_cmd_st([$ENV{OPENSSL_BIN} // 'openssl', 'pkeyutl', '-sign', '-rawin', '-inkey', $plain->{key}, '-in', $m,
                        '-out', "$m.sig"], env => { %{ $tpm->env }, LD_DEBUG => 'files' });
    is($r->{status}, 0, 'an unwitnessed signature');
    unlike($r->{err}, qr/klms-witness-tpm|libtss2/, 'signing without a witness loads nothing of the TPM stack');
    my $w = new_key();
    my $m2 = msg();
    my $t = run_cmd_st([$ENV{OPENSSL_BIN} // 'openssl', 'pkeyutl', '-sign', '-rawin', '-inkey', $w->{key}, '-in', $m2,
                        '-out', "$m2.sig"], env => { %{ $tpm->env }, LD_DEBUG => 'files' });
    is($t->{status}, 0, 'a witnessed signature');
    like($t->{err}, qr/klms-witness-tpm\.so/, 'a witnessed signature loads the TPM module (the check above can fail)');
    my @loaded = $t->{err} =~ /file=(\S+)\s+\[0\];\s+needed by \S*(?:klms-witness-tpm|libtss2)/g;
    my @crypto = grep { /libcrypto|libssl/ } @loaded;
    is("@crypto", '', 'the TPM module and tpm2-tss bring no libcrypto into the process (SAPI, not ESAPI)');
    my $ldd = run_cmd(['ldd', "$ENV{KLMS_WITNESS_DIR}/klms-witness-tpm.so"]);
    unlike($ldd->{out}, qr/libcrypto|libssl|libtss2-esys/, 'klms-witness-tpm.so links no libcrypto and no ESAPI');
}

# ---- the whole file copied over the live one (`cp backup k.state`) ----
{
    my $k = new_key();
    signs_ok($k, 1, 'cp over live');
    copy($k->{state}, "$k->{dir}/backup") or die;
    signs_ok($k, 3, 'cp over live, after the backup');
    system('cp', "$k->{dir}/backup", $k->{state}) == 0 or die;  # in place: the inode is kept
    refused_behind($k, 'cp over live');
    my $show = tool_run('show', $k->{state});
    like($show->{out}, qr/BEHIND.*3 indices may have been used/, 'cp over live: klms-state show says how far behind');
    my $text = openssl('pkey', '-in', $k->{key}, '-text', '-noout', { env => $tpm->env });
    like($text->{out}, qr/witness: tpm counter 0x[0-9a-f]{8}, BEHIND/, 'cp over live: pkey -text reports the witness');
    resync_ok($k, 'cp over live');
    signs_ok($k, 2, 'cp over live, after resync');
    ledger_ok($k->{ledger}, 'cp over live');
}
{
    # Without a witness the same restore is the documented undetectable case (docs/state.md
    # "What is not detected"): the ledger sees the reuse.
    my $k = new_key(witness => 'none');
    signs_ok($k, 1, 'no witness: cp over live');
    copy($k->{state}, "$k->{dir}/backup") or die;
    signs_ok($k, 2, 'no witness: after the backup');
    system('cp', "$k->{dir}/backup", $k->{state}) == 0 or die;
    signs_ok($k, 2, 'no witness: the restored file signs again');
    ok(scalar($k->{ledger}->reuses) > 0, 'no witness: cp over live reuses indices, as docs/state.md says');
}

# ---- one block restored from an older copy ----
{
    my $k = new_key();
    signs_ok($k, 1, 'one block');
    copy($k->{state}, "$k->{dir}/old") or die;
    signs_ok($k, 2, 'one block, after the copy');
    for my $block (0, 1) {
        if ($block == 1) {  # a copy of this file since its adoption (an older one is another instance)
            copy($k->{state}, "$k->{dir}/old") or die;
            signs_ok($k, 2, 'one block, after the second copy');
        }
        my $old = slurp("$k->{dir}/old");
        open my $fh, '+<', $k->{state} or die;
        binmode $fh;
        sysseek $fh, 4096 * $block, 0;
        syswrite $fh, substr($old, 4096 * $block, 4096);
        close $fh;
        my $r = sign($k);
        isnt($r->{status}, 0, "one block $block restored: refused");
        # The file is damaged (slots from different times); adopt --advance lands past the witness.
        my $a = tool_run('adopt', '--advance', '1', '--yes-i-destroyed-the-original', $k->{state});
        is($a->{status}, 0, "one block $block: adopt --advance 1") or diag($a->{err});
        signs_ok($k, 1, "one block $block: after adopt");
    }
    ledger_ok($k->{ledger}, 'one block restored');
}

# ---- the file restored after an orderly TPM restart ----
{
    my $k = new_key();
    signs_ok($k, 1, 'restart');
    copy($k->{state}, "$k->{dir}/backup") or die;
    signs_ok($k, 2, 'restart, before');
    $tpm->stop;
    $tpm->start_again;
    signs_ok($k, 1, 'restart: the counter survived an orderly restart');
    system('cp', "$k->{dir}/backup", $k->{state}) == 0 or die;
    refused_behind($k, 'restored after a restart');
    resync_after_restart_ok($k, 'restored after a restart');
    signs_ok($k, 1, 'restored after a restart, resync');
    ledger_ok($k->{ledger}, 'restored after a restart');
}

# ---- the TPM unreachable: stopped, and answering nothing ----
{
    my $k = new_key();
    signs_ok($k, 1, 'unreachable');
    my $before = slurp($k->{state});
    $tpm->stop;
    my $r = sign($k);
    isnt($r->{status}, 0, 'swtpm stopped: no signature');
    like($r->{err}, qr/witness unreachable|cannot be reached/, 'swtpm stopped: refused by name');
    is(slurp($k->{state}), $before, 'swtpm stopped: nothing written');
    my $show = tool_run('show', $k->{state});
    like($show->{out}, qr/witness state:\s+unreachable/, 'swtpm stopped: klms-state show says unreachable');
    $tpm->start_again;
    signs_ok($k, 1, 'swtpm back: signs again');

    # A TPM that accepts and answers nothing (stopped with SIGSTOP): refused within the deadline.
    my $conf = "$dir/deadline.cnf";
    my $base = slurp(openssl_conf());
    $base =~ s/^(\[klms_sect\]\s*\n)/$1tpm_timeout_ms = 1500\n/m or die 'no [klms_sect] in the configuration';
    spew($conf, $base);
    $tpm->suspend;
    my $t0 = time;
    my $d = sign($k, env => { OPENSSL_CONF => $conf });
    my $took = time - $t0;
    $tpm->resume;
    isnt($d->{status}, 0, 'swtpm answering nothing: no signature');
    like($d->{err}, qr/witness unreachable|cannot be reached/, 'swtpm answering nothing: refused by name');
    cmp_ok($took, '<', 30, "swtpm answering nothing: refused within the bound (${\ sprintf '%.1f', $took} s)");
    # A call the deadline abandoned may still complete in swtpm: the file is then behind or agrees.
    my $after = sign($k);
    if ($after->{status} != 0) {
        like($after->{err}, qr/behind its witness/, 'after the deadline: at worst behind, never reused');
        resync_ok($k, 'after the deadline');
        signs_ok($k, 1, 'after the deadline, resync');
    } else {
        pass('after the deadline: signs again');
    }
    ledger_ok($k->{ledger}, 'unreachable');
}

# ---- swtpm killed during a reservation's increments; restarted without an orderly shutdown ----
{
    my $k = new_key(lms => 'LMS_SHA256_M32_H10');
    signs_ok($k, 1, 'killed during increments');
    my $m = msg();
    # reserve:400 writes the file, then increments 400 times: kill swtpm in the middle of it.
    my $pid = fork // die;
    if ($pid == 0) {
        my $r = state_sign(key => $k->{key}, in => $m, out => "$m.sig", pkeyopt => ['reserve:400'], env => $tpm->env);
        exit($r->{status} == 0 ? 0 : 1);
    }
    usleep(150_000);
    $tpm->crash;
    waitpid($pid, 0);
    my $status = $? >> 8;
    if (-s "$m.sig") { $k->{ledger}->add(sig => slurp("$m.sig"), msg => slurp($m), label => 'reserve:400') }
    note("the signer killed mid-increments exited $status");
    $tpm->start_again;
    my $r = sign($k);
    if ($r->{status} != 0) {
        like($r->{err}, qr/behind its witness/, 'swtpm killed: refused as behind (an orderly counter jumps)');
        resync_after_restart_ok($k, 'swtpm killed');
    }
    signs_ok($k, 2, 'swtpm killed: signs on');

    # An unclean restart alone: the orderly counter jumps forward; refused, resync, on.
    $tpm->crash;
    $tpm->start_again;
    my $j = sign($k);
    isnt($j->{status}, 0, 'unclean restart: the jump is refused, never silently skipped');
    like($j->{err}, qr/restarted without an orderly shutdown/, 'unclean restart: the error names the cause');
    resync_after_restart_ok($k, 'unclean restart');
    signs_ok($k, 2, 'unclean restart: signs on after resync');
    ledger_ok($k->{ledger}, 'swtpm killed and restarted uncleanly');
}

# ---- another uid cannot advance (and so burn) the counter; the owner cannot either ----
{
    my $k = new_key();
    signs_ok($k, 1, 'other uid');
    my $show = tool_run('show', $k->{state});
    my ($index) = $show->{out} =~ /tpm counter (0x[0-9a-f]{8})/;
    ok($index, "the counter's index is shown ($index)");
    my $as_nobody = $> == 0 ? ['setpriv', '--reuid=65534', '--regid=65534', '--clear-groups'] : [];
    chmod 0755, $dir;  # nobody reaches the TPM socket (as a tss member reaches /dev/tpmrm0)
    chmod 0777, "$dir/tpm.sock", "$dir/tpm.sock.ctrl";
    my $attack = run_limited(30, [@$as_nobody, 'tpm2_nvincrement', $index, '-P', 'guess'],
                             env => { TPM2TOOLS_TCTI => $tpm->tcti });
    isnt($attack->{status}, 0, 'another uid with a guessed authorization cannot increment');
    my $owner = run_limited(30, ['tpm2_nvincrement', '-C', 'o', $index], env => { TPM2TOOLS_TCTI => $tpm->tcti });
    isnt($owner->{status}, 0, 'the owner hierarchy cannot increment it either (no OWNERWRITE)');
    my $steal = run_limited(30, [@$as_nobody, 'cat', "$k->{dir}/klms-witness.secret"]);
    if ($> == 0) { isnt($steal->{status}, 0, 'another uid cannot read the witness secret') }
    else { pass('not root: the secret is ours alone by its mode') }
    is((stat "$k->{dir}/klms-witness.secret")[2] & 07777, 0600, 'the witness secret is 0600');
    chmod 0700, $dir;
    signs_ok($k, 1, 'other uid: the key signs on (its counter was not moved)');
    ledger_ok($k->{ledger}, 'other uid');
}

# ---- backup and restore end to end (docs/backup.md) ----
{
    my $k = new_key();
    signs_ok($k, 1, 'backup');
    my $b = tool_run('backup', $k->{state}, "$k->{dir}/record");
    is($b->{status}, 0, 'klms-state backup') or diag($b->{err});
    signs_ok($k, 3, 'after the backup');
    my $over = tool_run('restore', "$k->{dir}/record", $k->{state});
    isnt($over->{status}, 0, 'restore never writes over a live state file');
    like($over->{err}, qr/already exists/, 'restore over a live file: refused by name');
    unlink $k->{state};  # the host lost its disk; the record and the TPM remain
    my $r = tool_run('restore', "$k->{dir}/record", $k->{state});
    is($r->{status}, 0, 'restore onto the same host: lands past the witness') or diag($r->{err});
    like($r->{err}, qr/next index 4/, 'restore: next index is the witnessed high-water mark');
    signs_ok($k, 2, 'after the restore');

    # A new host (another TPM): the record alone does not say how far the key went.
    my $other_dir = "$dir/otherhost";
    mkdir $other_dir, 0700;
    my $other = SwTpm->start($other_dir);
    my $tool_other = sub { run_limited(120, [$state_tool, @_], env => $other->env, stdin => '') };
    my $no_mark = $tool_other->('restore', "$k->{dir}/record", "$other_dir/k.state");
    isnt($no_mark->{status}, 0, 'restore on a new host without a high-water mark: refused');
    like($no_mark->{err}, qr/--after-signature/, 'the refusal says where a mark comes from');
    my $last = $k->{last_sig};  # the last signature this key made (the operator keeps it: docs/backup.md)
    my $with = $tool_other->('restore', '--after-signature', $last, "$k->{dir}/record", "$other_dir/k.state");
    is($with->{status}, 0, 'restore on a new host --after-signature the last signature') or diag($with->{err});
    like($with->{err}, qr/bind it to this host's TPM/, 'restored onto a new host: witness required first');
    my $adopt = $tool_other->('adopt', '--witness', 'tpm', '--yes-i-destroyed-the-original', "$other_dir/k.state");
    is($adopt->{status}, 0, 'adopt --witness tpm on the new host') or diag($adopt->{err});
    # The key file names the old path: sign on the new host with the state-file override.
    my $m = msg();
    my $s = state_sign(key => $k->{key}, in => $m, out => "$m.sig", pkeyopt => ["state-file:$other_dir/k.state"],
                       env => $other->env);
    is($s->{status}, 0, 'the new host signs') or diag($s->{err});
    $k->{ledger}->add(sig => $s->{sig}, msg => slurp($m), label => 'new host') if $s->{status} == 0;
    ledger_ok($k->{ledger}, 'backup and restore');
    $other->crash;
}

# ---- a lease of a witnessed key; retire ----
{
    my $k = new_key(lms => 'LMS_SHA256_M32_H10');
    signs_ok($k, 1, 'lease');
    my $l = tool_run('lease', '--count', '20', $k->{state}, "$k->{dir}/lease.state");
    is($l->{status}, 0, 'a lease of a witnessed key') or diag($l->{err});
    my $r = state_sign(key => $k->{key}, in => msg(), out => "$dir/lease.sig",
                       pkeyopt => ["state-file:$k->{dir}/lease.state"], env => $tpm->env);
    isnt($r->{status}, 0, 'the lease signs nothing before it is bound on its host');
    like($r->{err}, qr/bound to a witness/, 'the lease: refused by name');
    signs_ok($k, 1, 'the parent signs past the lease');
    my $ret = tool_run('retire', '--yes', $k->{state});
    is($ret->{status}, 0, 'klms-state retire') or diag($ret->{err});
    my $after = sign($k);
    isnt($after->{status}, 0, 'a retired key signs nothing');
    ledger_ok($k->{ledger}, 'lease and retire');
}

# ---- file-system images (root: loop devices and overlayfs) ----
SKIP: {
    skip 'not root: the loop-device and overlayfs cases need mounts (CI runs as root)', 1 if $> != 0;
    my $mnt = "$dir/mnt";
    mkdir $mnt, 0700;
    my $img = "$dir/fs.img";
    my $ok = system("truncate -s 24M $img && mkfs.ext4 -q -F $img >/dev/null 2>&1 && mount -o loop $img $mnt") == 0;
    skip 'cannot mount a loop device here (no loop support in this container)', 1 unless $ok;
    chmod 0700, $mnt;
    my $k = new_key(dir => $mnt);
    signs_ok($k, 1, 'loop image');
    system("umount $mnt && cp --sparse=always $img $img.bak && mount -o loop $img $mnt") == 0 or die;
    signs_ok($k, 3, 'loop image, after the image copy');
    system("umount $mnt && cp --sparse=always $img.bak $img && mount -o loop $img $mnt") == 0 or die;
    refused_behind($k, 'loop image copied back');
    resync_ok($k, 'loop image copied back');
    signs_ok($k, 1, 'loop image copied back, resync');
    ledger_ok($k->{ledger}, 'loop image');
    system("umount $mnt");
}
SKIP: {
    # A btrfs snapshot restored: the subvolume is rolled back to a snapshot taken earlier (deleted,
    # and the snapshot put back under its name), as a snapshot-based backup restores a host.
    skip 'not root: btrfs needs mounts (CI runs as root)', 1 if $> != 0;
    skip 'mkfs.btrfs not installed (scripts/install-deps.sh installs btrfs-progs)', 1
        unless system('sh', '-c', 'command -v mkfs.btrfs >/dev/null') == 0;
    my ($img, $mnt) = ("$dir/btrfs.img", "$dir/btrfs");
    mkdir $mnt, 0700;
    my $ok = system("truncate -s 128M $img && mkfs.btrfs -q -f $img >/dev/null 2>&1 && mount -o loop $img $mnt") == 0;
    skip 'cannot mount a btrfs loop device here', 1 unless $ok;
    system("btrfs -q subvolume create $mnt/vol >/dev/null") == 0 or die;
    chmod 0700, $mnt, "$mnt/vol";
    my $k = new_key(dir => "$mnt/vol");
    signs_ok($k, 1, 'btrfs');
    system("btrfs -q subvolume snapshot $mnt/vol $mnt/snap >/dev/null") == 0 or die;
    signs_ok($k, 3, 'btrfs, after the snapshot');
    system("btrfs -q subvolume delete $mnt/vol >/dev/null && btrfs -q subvolume snapshot $mnt/snap $mnt/vol >/dev/null") == 0
        or die 'restoring the snapshot';
    chmod 0700, "$mnt/vol";
    my $r = sign($k);
    isnt($r->{status}, 0, 'btrfs snapshot restored: the rolled-back file signs nothing');
    # A snapshot is another subvolume (another device number): copied, or behind its witness.
    like($r->{err}, qr/behind its witness|copied, restored or moved/, 'btrfs snapshot restored: refused by name');
    my $a = tool_run('adopt', '--yes-i-destroyed-the-original', $k->{state});
    is($a->{status}, 0, 'btrfs snapshot restored: adopt') or diag($a->{err});
    like(tool_run('show', $k->{state})->{out}, qr/next index:\s+4\n/, 'btrfs: adopt lands past the witness (next index 4)');
    signs_ok($k, 1, 'btrfs snapshot restored, adopted');
    ledger_ok($k->{ledger}, 'btrfs snapshot restored');
    system("umount $mnt");
}
SKIP: {
    skip 'not root: overlayfs needs mounts (CI runs as root)', 1 if $> != 0;
    my ($lower, $merged) = ("$dir/layer", "$dir/merged");
    mkdir $_, 0700 for $lower, $merged;
    my $mount = sub {
        my ($i) = @_;
        mkdir "$dir/up$i", 0700;
        mkdir "$dir/work$i", 0700;
        return system("mount -t overlay overlay -o lowerdir=$lower,upperdir=$dir/up$i,workdir=$dir/work$i $merged") == 0;
    };
    # The image layer: a key made on a plain directory that becomes the lower layer.
    skip 'cannot mount overlayfs here', 1 unless $mount->(0);
    chmod 0700, $merged;
    my $k = new_key(dir => $merged);
    system("umount $merged") == 0 or die;
    system("cp -a $dir/up0/. $lower/") == 0 or die;  # bake the key into the image layer
    # Each container's merged directory is a new device: the file looks copied there, and the
    # container's start-up adopts it (docs/backup.md "Containers and images"); the witness decides how far.
    my $adopt = sub { tool_run('adopt', '--yes-i-destroyed-the-original', $k->{state}) };
    ok($mount->(1), 'container 1: the image layer with a fresh upper layer');
    my $c1 = sign($k);
    like($c1->{err}, qr/copied, restored or moved/, 'container 1: a new device looks copied');
    is($adopt->()->{status}, 0, 'container 1: adopt');
    signs_ok($k, 3, 'container 1');
    system("umount $merged") == 0 or die;
    ok($mount->(2), 'container 2: the same image, another fresh upper layer');
    my $a2 = $adopt->();
    is($a2->{status}, 0, 'container 2: adopt') or diag($a2->{err});
    like(tool_run('show', $k->{state})->{out}, qr/next index:\s+3\n/, 'container 2: adopt lands past the witness (next index 3)');
    signs_ok($k, 2, 'container 2');
    ledger_ok($k->{ledger}, 'overlayfs image used twice');
    system("umount $merged");
}

$tpm->stop;
done_testing();
