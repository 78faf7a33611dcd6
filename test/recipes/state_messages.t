# What klms-state and signing say, and that it agrees with what signing does (klms-state(1), the
# README's "State file", docs/errors.md):
#   - `klms-state show` (and `show --json`) exits 1 whenever signing refuses the file: a key waiting
#     for `acknowledge`, an exhausted one, a file on a read-only file system, one behind its witness;
#     and for each case the real signature is refused too (the verdict is not the code's word);
#   - --help lists every command and option of the man page's synopsis, and the NAME line names
#     every command;
#   - signing writes one warning line from 2 x the threshold left, none before and none with
#     low_signatures_warning = 0; `pkey -text` says how many signatures remain before the stop;
#   - messages: `show` says copied/restored YES above BEHIND; "1 index", never "1 indices"; the TPM's
#     refusal carries its cause in brackets and tpm2-tss's own ERROR lines only when TSS2_LOG asks;
#     `adopt` after `restore --after-signature` does not ask for --advance; "state file missing"
#     names `klms-state restore` and docs/backup.md; resync says why after --counter-at-least.
# Cost: two swtpm, one single-member etcd, H5 keys, about 60 short processes: ~10 s.
use strict;
use warnings;
use Test::More;
use KlmsTest;
use ReuseTest;
use SwTpm;
use EtcdCluster;

my $dir = private_dir();
my $state_tool = tool('klms-state');
my $n = 0;

sub keydir { my $d = "$dir/k" . ++$n; mkdir $d, 0700 or die "$d: $!"; return $d }
sub genkey {
    my ($d, $env, @opts) = @_;
    my $r = hss_key("$d/k.pem", "$d/k.state", 'LMS_SHA256_M32_H5', 'LMOTS_SHA256_N32_W8', @opts, { env => $env // {} });
    die "genpkey: $r->{err}" if $r->{status} != 0;
    return $d;
}
sub sign {
    my ($d, $env) = @_;
    my $m = "$dir/m" . ++$n;    # not in $d: it may be read-only
    spew($m, "firmware $n\n");
    return state_sign(key => "$d/k.pem", in => $m, out => "$m.sig", env => $env // {});
}
sub st { my ($env, @a) = @_; return run_limited(60, [$state_tool, @a], env => $env // {}, stdin => '') }
sub advance {
    my ($d, $by) = @_;
    my $r = st({}, 'adopt', '--advance', $by, '--yes-i-destroyed-the-original', "$d/k.state");
    die "adopt --advance: $r->{err}" if $r->{status} != 0;
}
# show and show --json both say `signable` (exit 0) or not (exit 1), and a signature agrees.
sub verdict {
    my ($d, $signs, $name, %o) = @_;
    my $show = st($o{env}, 'show', "$d/k.state");
    my $json = st($o{env}, 'show', '--json', "$d/k.state");
    is($show->{status}, $signs ? 0 : 1, "$name: klms-state show exits " . ($signs ? 0 : 1)) or diag($show->{out});
    is($json->{status}, $signs ? 0 : 1, "$name: show --json exits the same");
    like($json->{out}, $signs ? qr/"signable": true/ : qr/"signable": false/, "$name: --json's signable agrees");
    like($show->{out}, $o{says}, "$name: show says why") if $o{says};
    unless ($o{no_sign}) {
        my $s = sign($d, $o{env});
        is($s->{status} == 0 ? 1 : 0, $signs ? 1 : 0, "$name: and signing " . ($signs ? 'signs' : 'refuses'))
            or diag($s->{err});
    }
    return $show;
}

# ---- --help and the man page's NAME ----
{
    my $h = st({}, '--help');
    is($h->{status}, 0, 'klms-state --help exits 0');
    my $man = slurp("$ENV{KLMS_SOURCE_DIR}/man/klms-state.1.scd");
    my ($name_line) = $man =~ /# NAME\s*\n\s*\n(.+)\n/;
    my @commands = $man =~ /^\*klms-state (\w+)\*/mg;
    ok(@commands >= 11, 'the synopsis lists the commands (' . scalar(@commands) . ')');
    for my $c (@commands) {
        like($h->{err}, qr/^\s*(?:usage: )?klms-state \Q$c\E\b/m, "--help has a usage line for $c");
        my $word = $c eq 'backup' ? 'back up' : $c;
        like($name_line, qr/\b\Q$word\E\b/, "the NAME line names $c");
    }
    for my $opt ($man =~ /^\*klms-state \w+\*.*$/mg) {
        for my $o ($opt =~ /\*(--[\w-]+)\*/g) { like($h->{err}, qr/\Q$o\E\b/, "--help names $o") }
    }
}

# ---- the acknowledgement gate and exhaustion: show's exit, the warning line, pkey -text ----
{
    my $d = genkey(keydir());    # 32 signatures, T = 100: the threshold is min(100, 32/10) = 3
    verdict($d, 1, 'a new key');
    advance($d, 23);             # next 24: 8 left
    my $s = sign($d);
    is($s->{status}, 0, 'signing with 7 left after it');
    unlike($s->{err}, qr/warning/, 'no warning above 2 x the threshold (7 left)');
    $s = sign($d);
    my @lines = $s->{err} =~ /^klms: warning: .*$/mg;
    is(scalar(@lines), 1, 'one warning line at 2 x the threshold (6 left)') or diag($s->{err});
    like($lines[0] // '', qr/\Q$d\E\/k\.state: 3 signatures left before signing stops .*klms-state acknowledge/,
         'the line names the file, the signatures before the stop and the command');
    my $t = openssl('pkey', '-in', "$d/k.pem", '-noout', '-text');
    like($t->{out}, qr/^signatures before the acknowledgement stop: 3 /m, 'pkey -text: 3 before the stop');
    $s = sign($d) for 1 .. 2;
    like($s->{err}, qr/: 1 signature left before signing stops/, '"1 signature", singular');
    $s = sign($d);
    like($s->{err}, qr/: 0 signatures left before signing stops/, 'the last one before the stop says 0');
    verdict($d, 0, 'waiting for acknowledge', says => qr/REFUSED FOR SIGNING: key nearly exhausted.*klms-state acknowledge/);
    my $key_id = (st({}, 'show', '--json', "$d/k.state")->{out} =~ /"key_id": "([0-9a-f]{64})"/)[0];
    my $ack = st({}, 'acknowledge', '--key-id', $key_id, "$d/k.state");
    is($ack->{status}, 0, 'acknowledge') or diag($ack->{err});
    verdict($d, 1, 'acknowledged');
    advance($d, 100);
    verdict($d, 0, 'exhausted', says => qr/REFUSED FOR SIGNING: .*exhausted/i);

    # T = 0: no stop and no line.
    my $conf = "$dir/t0.cnf";
    spew($conf, ".include " . openssl_conf() . "\n[klms_sect]\nlow_signatures_warning = 0\n[default]\n");
    my $z = genkey(keydir(), { OPENSSL_CONF => $conf });
    advance($z, 29);
    my $last = sign($z);
    is($last->{status}, 0, 'low_signatures_warning = 0: signs among the last indices');
    unlike($last->{err}, qr/warning/, 'low_signatures_warning = 0: no warning line');
}

# ---- a read-only file system (root: a tmpfs remounted read-only), else a file not ours to write ----
SKIP: {
    my $d = keydir();
    my $mounted = $> == 0 && system('mount', '-t', 'tmpfs', '-o', 'size=2m,mode=0700', 'tmpfs', $d) == 0;
    skip 'not root (or no mount here): the read-only case needs a tmpfs', 5 unless $mounted;
    genkey($d);
    verdict($d, 1, 'on a writable tmpfs');
    system('mount', '-o', 'remount,ro', $d) == 0 or diag('remount,ro failed');
    verdict($d, 0, 'on a read-only file system', says => qr/REFUSED FOR SIGNING: .*read-only/);
    system('umount', $d);
}

# ---- the README says what a state directory may be, and its key example makes its own ----
{
    my $readme = slurp("$ENV{KLMS_SOURCE_DIR}/README.md");
    like($readme, qr/0755\s+is accepted, a group- or world-writable one is refused/, 'the README says which directory modes are accepted');
    my ($block) = $readme =~ /\*\*A key\*\*.*?```sh\n(.*?)```/s;
    my ($state_dir) = ($block // '') =~ /state-file:"?([^" ]+)\/[^\/" ]+"? /;
    ok(defined $state_dir && $block =~ /mkdir -p -m 700 "?\Q$state_dir\E"?/, "the README's key example creates its state directory");
    for my $mode (0755, 0775, 0757) {
        my $d = "$dir/mode" . sprintf('%o', $mode);
        mkdir $d or die;
        chmod $mode, $d;
        my $r = hss_key("$d/k.pem", "$d/k.state", 'LMS_SHA256_M32_H5', 'LMOTS_SHA256_N32_W8');
        my $accepted = $mode == 0755;
        is($r->{status} == 0 ? 1 : 0, $accepted ? 1 : 0, sprintf('a %o state directory is %s, as the README says', $mode, $accepted ? 'accepted' : 'refused'))
            or diag($r->{err});
    }
}

# ---- "state file missing" says how to restore ----
{
    my $d = genkey(keydir());
    unlink "$d/k.state" or die;
    my $s = sign($d);
    like($s->{err}, qr/state file missing.*klms-state restore .*docs\/backup\.md/, '"state file missing" names klms-state restore and docs/backup.md');
}

# ---- with a TPM witness ----
SKIP: {
    unless (SwTpm::available()) {
        BAIL_OUT('swtpm / tpm2-tools not installed (scripts/install-deps.sh installs them)') if $ENV{CI};
        skip 'swtpm / tpm2-tools not installed', 1;
    }
    my $tpm = SwTpm->start(keydir());
    my $env = $tpm->env;
    my $d = genkey(keydir(), $env, 'witness:tpm');
    is(sign($d, $env)->{status}, 0, 'a witnessed signature');
    my $saved = slurp("$d/k.state");
    is(sign($d, $env)->{status}, 0, 'another');
    spew("$d/k.state", $saved);    # rolled back in place: the same inode, one index behind
    my $show = verdict($d, 0, 'behind its witness', env => $env, says => qr/witness state:\s+BEHIND/, no_sign => 1);
    unlike($show->{out}, qr/copied\/restored:\s+no/, 'show does not say copied/restored: no above BEHIND');
    like($show->{out}, qr/copied\/restored:\s+YES.*resync/, 'show says copied/restored: YES, and resync');
    like($show->{out}, qr/\(1 index may have been used since\)/, 'show: "1 index", singular');
    my $b = sign($d, $env);
    like($b->{err}, qr/behind its witness/, 'and signing refuses it');
    my $r = st($env, 'resync', "$d/k.state");
    is($r->{status}, 0, 'resync') or diag($r->{err});
    like($r->{err}, qr/\(1 index skipped: it may have been used/, 'resync: "1 index skipped", singular');
    unlike($r->{err}, qr/\b1 indices\b/, 'never "1 indices"');

    # The TPM's cause in brackets; tpm2-tss's own lines only when asked for.
    my $gone = { KLMS_TPM_TCTI => "swtpm:path=$dir/no-such-tpm.sock" };
    my $u = sign($d, $gone);
    like($u->{err}, qr/witness unreachable.*\[tpm: [^\]]*no-such-tpm/, 'the TPM refusal carries its cause in brackets');
    unlike($u->{err}, qr/^(?:ERROR|WARNING):tcti/m, "tpm2-tss's own lines are not printed");
    my $ru = st($gone, 'resync', "$d/k.state");
    like($ru->{err}, qr/\[tpm: [^\]]*no-such-tpm/, 'klms-state too carries the cause in brackets');
    my $asked = sign($d, { %$gone, TSS2_LOG => 'all+error' });
    like($asked->{err}, qr/^ERROR:tcti/m, 'TSS2_LOG=all+error shows them (the check above can fail)');

    # A new host: restore --after-signature, then adopt --witness tpm asks for no --advance.
    my $last = "$d/last.sig";
    my $s = sign($d, $env);
    is($s->{status}, 0, 'a signature to restore after') or diag($s->{err});
    rename $s->{file}, $last or die;
    my $rec = st($env, 'backup', "$d/k.state", "$d/k.record");
    is($rec->{status}, 0, 'backup') or diag($rec->{err});
    my $other = SwTpm->start(keydir());
    my $h = keydir();
    my $res = st($other->env, 'restore', '--after-signature', $last, "$d/k.record", "$h/k.state");
    is($res->{status}, 0, 'restore --after-signature on a new host') or diag($res->{err});
    my $ad = st($other->env, 'adopt', '--witness', 'tpm', '--yes-i-destroyed-the-original', "$h/k.state");
    is($ad->{status}, 0, 'adopt --witness tpm there') or diag($ad->{err});
    unlike($ad->{err}, qr/--advance N/, 'adopt after restore --after-signature does not ask for --advance');
    like($ad->{err}, qr/restored past the high-water mark/, '... and says why');
    $other->stop;
    $tpm->stop;
}

# ---- a fleet host: resync --counter-at-least says the mark it applied ----
SKIP: {
    skip 'etcd not installed', 2 unless EtcdCluster::available();
    skip 'klms-witness-etcd.so not built', 2 unless -e "$ENV{KLMS_BUILD_DIR}/witness/klms-witness-etcd.so";
    my $cluster = EtcdCluster->start(dir => keydir(), members => 1);
    my $env = $cluster->env;
    my $d = genkey(keydir(), $env, 'witness:etcd');
    my $r = st($env, 'resync', '--counter-at-least', '20', "$d/k.state");
    is($r->{status}, 0, 'resync --counter-at-least 20') or diag($r->{err});
    like($r->{err}, qr/at least 20 \(--counter-at-least or --after-signature\)/, 'resync names the mark it applied, not "behind its witness"');
    $cluster->stop;
}

done_testing();
