# Reuse and misuse of state files through the real openssl binary and klms-state (docs/state.md
# "Errors", "Choosing the current slot", §3, §18):
#   recovery never takes a block of another state file (its parent, a sibling lease, another key);
#   adopt prints the kind and range it will write;
#   a state file readable by group or others is refused, with the chmod to run;
#   overlayfs (no file handles) is refused unless allowed;
#   a tree cache's name is never a new state file;
#   numbers are plain decimal;
#   discard asks first;
#   genpkey -aes256 without a passphrase names the orphan state file;
#   errors say what to do (adopt, the system's reason of a failed write, EXHAUSTED, few left).
use strict;
use warnings;
use Test::More;
use KlmsTest qw(:DEFAULT cmd_ok cmd_fails hss_genpkey);

my $dir = private_dir();
$ENV{KLMS_STATE_DIR} = "$dir/default-state";
mkdir $ENV{KLMS_STATE_DIR}, 0700 or die;
my $msg = "$dir/msg.txt";
spew($msg, "misuse\n");
my $klms_state = tool('klms-state');
my $keyno = 0;

sub genkey {
    my ($state, @extra) = @_;
    my $opts = ref $extra[-1] eq 'HASH' ? pop @extra : {};
    my $key = "$dir/k" . ++$keyno . '.pem';
    my $r = openssl_st('genpkey', '-algorithm', 'HSS-LMS', '-pkeyopt', 'lms:LMS_SHA256_M32_H5', '-pkeyopt',
                       'ots:LMOTS_SHA256_N32_W8', '-pkeyopt', "state-file:$state", (map { ('-pkeyopt', $_) } @extra),
                       '-out', $key, $opts);
    return { r => $r, key => $key, state => $state };
}
my $signo = 0;
sub sign {
    my ($key, @pkeyopt) = @_;
    my $opts = ref $pkeyopt[-1] eq 'HASH' ? pop @pkeyopt : {};
    return state_sign(key => $key, in => $msg, out => "$dir/s" . ++$signo . '.sig', pkeyopt => \@pkeyopt, %$opts);
}
sub kstate { return run_cmd_st([ $klms_state, @_ ]) }
sub lease {
    my ($parent, $target, $count) = @_;
    my $r = kstate('lease', '--count', $count, $parent, $target);
    die "lease: $r->{err}" if $r->{status} != 0;
}
sub raw { return slurp($_[0]) }
# Block `n` of `from` written over block `n` of `to`, in place (same inode).
sub splice_block {
    my ($from, $to, $n) = @_;
    my $block = substr(raw($from), 4096 * $n, 4096);
    open(my $fh, '+<', $to) or die "$to: $!";
    binmode $fh;
    sysseek($fh, 4096 * $n, 0) or die;
    syswrite($fh, $block) == 4096 or die;
    close $fh;
}
# A configuration file: conf/klms.cnf with these keys in the provider's section.
sub conf_with {
    my ($name, @lines) = @_;
    (my $text = slurp(openssl_conf())) =~ s/^\[klms_sect\]\n/[klms_sect]\n@{[join("\n", @lines)]}\n/m or die;
    my $path = "$dir/$name.cnf";
    spew($path, $text);
    return $path;
}

subtest 'recovery never takes a block of another state file' => sub {
    my $other = genkey("$dir/other.state");
    cmd_ok($other->{r}, 'another key');
    cmd_ok(sign($other->{key}), "it signs ($_)") for 1 .. 2;
    for my $donor_kind ('parent', 'sibling lease', 'other key') {
        my $p = genkey("$dir/p$keyno.state");
        cmd_ok($p->{r}, "a parent key ($donor_kind)");
        my $victim = "$dir/victim$keyno.state";
        my $sibling = "$dir/sibling$keyno.state";
        lease($p->{state}, $victim, 4);    # [0, 4)
        lease($p->{state}, $sibling, 4);   # [4, 8): a higher next than the victim's
        my $donor = { 'parent' => $p->{state}, 'sibling lease' => $sibling, 'other key' => $other->{state} }->{$donor_kind};
        splice_block($donor, $victim, 0);
        my $before = raw($victim);
        my $a = kstate('adopt', '--advance', '1', '--yes-i-destroyed-the-original', $victim);
        isnt($a->{status}, 0, "adopt --advance 1 refuses a lease holding a block of its $donor_kind");
        like($a->{err}, qr/blocks of different state files/, '... saying why');
        is(raw($victim), $before, '... and does not write');
        unlike(kstate('show', $victim)->{out}, qr/^kind:\s+key state file/m, 'the lease never became a key state file');
    }
};

subtest 'adopt prints the kind and range it will write' => sub {
    my $p = genkey("$dir/adoptkind.state");
    cmd_ok($p->{r}, 'genpkey');
    lease($p->{state}, "$dir/adoptkind-lease.state", 3);
    my $r = run_cmd_st([ $klms_state, 'adopt', "$dir/adoptkind-lease.state" ], stdin => '');
    like($r->{err}, qr/written as a LEASE of indices \[0, 3\)/, 'a lease: LEASE of indices [0, 3)');
    $r = run_cmd_st([ $klms_state, 'adopt', $p->{state} ], stdin => '');
    like($r->{err}, qr/written as a key state file of indices \[0, 32\)/, 'a key state file: [0, 32)');
    isnt($r->{status}, 0, 'without the typed answer nothing is adopted');
};

subtest 'a state file readable by group or others is refused, with the chmod to run' => sub {
    my $k = genkey("$dir/readable.state");
    cmd_ok($k->{r}, 'genpkey');
    chmod 0644, $k->{state} or die;
    my $s = sign($k->{key});
    cmd_fails($s, qr/state file or directory not private/, 'signing refuses a 0644 state file');
    like($s->{err}, qr/readable by group or others.*run: chmod 600 \Q$k->{state}\E/, '... naming the chmod to run');
    my $t = openssl_st('pkey', '-in', $k->{key}, '-text', '-noout');
    is($t->{status}, 0, 'pkey -text still shows the key');
    like($t->{out}, qr/^state: REFUSED FOR SIGNING: state file is readable by group or others.*chmod 600/m,
         '... and says the file is refused');
    my $show = state_show($k->{state});
    like($show->{out}, qr/^condition:\s+REFUSED FOR SIGNING: state file is readable by group or others.*run: chmod 600 \Q$k->{state}\E$/m,
         'klms-state show shows it, refused, with the chmod');
    for my $cmd ([ 'adopt', '--yes-i-destroyed-the-original', $k->{state} ],
                 [ 'lease', '--count', '2', $k->{state}, "$dir/readable-lease.state" ],
                 [ 'discard', '--yes', $k->{state} ]) {
        my $r = kstate(@$cmd);
        isnt($r->{status}, 0, "klms-state $cmd->[0] refuses it");
        like($r->{err}, qr/chmod 600 \Q$k->{state}\E/, '... naming the chmod');
    }
    ok(!-e "$dir/readable-lease.state", 'no lease was cut');
    chmod 0640, $k->{state} or die;
    cmd_fails(sign($k->{key}), qr/not private/, '0640 is refused too');
    chmod 0600, $k->{state} or die;
    cmd_ok(sign($k->{key}), 'after chmod 600 it signs');
};

subtest 'a tree cache name is never a new state file' => sub {
    my $k = genkey("$dir/cached.state");
    cmd_ok($k->{r}, 'genpkey');
    my $next = state_show($k->{state})->{next};
    for my $name ("$k->{state}.cache", "$k->{state}.cache.level2", "$k->{state}.cache.level2.tmp.0123") {
        my $r = kstate('lease', '--count', '2', $k->{state}, $name);
        isnt($r->{status}, 0, "lease to $name is refused");
        like($r->{err}, qr/name is one a tree cache uses/, '... as a tree cache name');
    }
    is(state_show($k->{state})->{next}, $next, 'the parent gave up no index');
    my $g = genkey("$dir/fresh.state.cache");
    cmd_fails($g->{r}, qr/state file name is a tree cache's name/, 'genpkey refuses a .cache name');
    ok(!-e "$dir/fresh.state.cache", '... before creating anything');
};

subtest 'numbers are plain decimal' => sub {
    my $k = genkey("$dir/numbers.state");
    cmd_ok($k->{r}, 'genpkey');
    my $gen = state_show($k->{state})->{generation};
    for my $bad (' -1', '-1', '+1', '1 ', ' 1', '0x10', '1e3', '18446744073709551616', '') {
        my $r = kstate('adopt', '--advance', $bad, '--yes-i-destroyed-the-original', $k->{state});
        is($r->{status}, 2, "adopt --advance '$bad' is a usage error");
        $r = kstate('lease', '--count', $bad, $k->{state}, "$dir/numbers-lease.state");
        is($r->{status}, 2, "lease --count '$bad' is a usage error");
    }
    like(kstate('adopt', '--advance', ' -1', $k->{state})->{err}, qr/not a plain decimal number/, 'the error says why');
    is(state_show($k->{state})->{generation}, $gen, 'the state file was never written');
    is(state_show($k->{state})->{remaining}, 32, 'and the key is not exhausted');
};

subtest 'discard asks first, naming the key id' => sub {
    my $k = genkey("$dir/discard.state");
    cmd_ok($k->{r}, 'genpkey');
    my $id = state_show($k->{state})->{key_id};
    my $r = run_cmd_st([ $klms_state, 'discard', $k->{state} ], stdin => "yes\n");
    isnt($r->{status}, 0, 'a wrong answer does not discard');
    like($r->{err}, qr/\Q$id\E/, '... and the question names the key id');
    ok(-f $k->{state}, '... and the file is kept');
    $r = kstate('discard', '--yes', $k->{state});
    is($r->{status}, 0, 'discard --yes removes it') or diag $r->{err};
    ok(!-e $k->{state}, '... gone');
};

subtest 'genpkey -aes256 without a passphrase names the orphan state file' => sub {
    my $state = "$dir/unencoded.state";
    my $key = "$dir/unencoded.pem";
    my $r = run_cmd_st([ 'setsid', '-w', $ENV{OPENSSL_BIN} // 'openssl', 'genpkey', '-algorithm', 'HSS-LMS',
                         '-pkeyopt', 'lms:LMS_SHA256_M32_H5', '-pkeyopt', 'ots:LMOTS_SHA256_N32_W8',
                         '-pkeyopt', "state-file:$state", '-aes256', '-out', $key ], stdin => '');
    isnt($r->{status}, 0, 'genpkey fails without a passphrase');
    ok(-f $state, 'the state file was made (the tree was built before the passphrase was asked for)');
    like($r->{err}, qr/klms-state discard \Q$state\E/, 'the error names `klms-state discard PATH`');
    is(state_show($state)->{next}, 0, 'and the file is unused');
};

subtest 'a copied state file: the error names klms-state adopt' => sub {
    my $k = genkey("$dir/copied.state");
    cmd_ok($k->{r}, 'genpkey');
    my $copy = "$dir/copied-copy.state";
    spew($copy, raw($k->{state}));
    chmod 0600, $copy or die;
    my $s = sign($k->{key}, "state-file:$copy");
    cmd_fails($s, qr/copied, restored or moved/, 'a copy is refused');
    like($s->{err}, qr/klms-state adopt \Q$copy\E/, '... and the error names klms-state adopt PATH');
};

# klms-state show --json, decoded; [next index, generation] from klms-state show.
sub json_of {
    my ($state) = @_;
    require JSON::PP;
    return JSON::PP->new->decode(kstate('show', '--json', $state)->{out});
}
sub next_and_generation { my $i = state_show($_[0]); return [ $i->{next}, $i->{generation} ] }

subtest 'pkey -text: EXHAUSTED, and a warning when few signatures are left' => sub {
    my $k = genkey("$dir/few.state");
    cmd_ok($k->{r}, 'genpkey');
    cmd_ok(kstate('adopt', '--advance', '29', '--yes-i-destroyed-the-original', $k->{state}), 'advance to 29');
    my $t = openssl_st('pkey', '-in', $k->{key}, '-text', '-noout');
    like($t->{out}, qr/^state: ok$/m, '3 left: state ok');
    # docs/state.md §5: min(T = 100, 32 / 10) = 3.
    like($t->{out}, qr/^WARNING: only 3 signatures left \(threshold 3, low_signatures_warning = 100\)/m,
         '... with the warning');
    # T is the key's, recorded when it was generated: a configuration read later changes nothing.
    my $quiet = conf_with('quiet', 'low_signatures_warning = 2');
    $t = openssl_st('pkey', '-in', $k->{key}, '-text', '-noout', { env => { OPENSSL_CONF => $quiet } });
    like($t->{out}, qr/^WARNING: only 3 signatures left \(threshold 3/m,
         'low_signatures_warning = 2 when reading: the threshold the file records still');
    my $k2 = genkey("$dir/few-quiet.state", { env => { OPENSSL_CONF => $quiet } });
    cmd_ok($k2->{r}, 'genpkey with low_signatures_warning = 2');
    cmd_ok(kstate('adopt', '--advance', '29', '--yes-i-destroyed-the-original', $k2->{state}), 'advance to 29');
    $t = openssl_st('pkey', '-in', $k2->{key}, '-text', '-noout');
    like($t->{out}, qr/^state: ok$/m, 'generated with low_signatures_warning = 2: state ok');
    unlike($t->{out}, qr/WARNING/, '... and no warning at 3 left');
    # klms-state reads no provider configuration: it agrees because the file records T.
    like(state_show($k2->{state})->{out}, qr/^exhaustion:\s+threshold 2 \(low_signatures_warning = 2,/m,
         'klms-state show: threshold 2, from the file');
    is(json_of($k2->{state})->{exhaustion}{threshold}, 2, 'show --json: threshold 2');
    my $bad = conf_with('badwarn', 'low_signatures_warning = -1');
    $t = openssl_st('pkey', '-in', $k->{key}, '-text', '-noout', { env => { OPENSSL_CONF => $bad } });
    # OpenSSL 3.0 does not print a provider's initialisation error: the provider is simply not loaded.
    isnt($t->{status}, 0, 'low_signatures_warning = -1: the provider refuses to load');
    unlike($t->{out}, qr/^state: ok$/m, '... and nothing says state: ok');
    cmd_ok(kstate('adopt', '--advance', '3', '--yes-i-destroyed-the-original', $k->{state}), 'advance to the end');
    $t = openssl_st('pkey', '-in', $k->{key}, '-text', '-noout');
    like($t->{out}, qr/^state: EXHAUSTED/m, 'exhausted: state: EXHAUSTED');
    unlike($t->{out}, qr/^state: ok$/m, '... not state: ok');
};

# docs/state.md §5, docs/rfc10033.md "The exhaustion warning: should signing wait for an acknowledgement?":
# an H5 key's last 3 wait for `klms-state acknowledge`.
subtest 'the exhaustion acknowledgement: signing stops at the threshold until acknowledged' => sub {
    my $k = genkey("$dir/ack.state");
    cmd_ok($k->{r}, 'genpkey');
    my $id = state_show($k->{state})->{key_id};
    cmd_ok(kstate('adopt', '--advance', '28', '--yes-i-destroyed-the-original', $k->{state}), 'advance to 28: 4 left = T + 1');
    my $s = sign($k->{key});
    cmd_ok($s, 'signs once at T + 1');
    my $before = next_and_generation($k->{state});
    is($before->[0], 29, '... next 29');
    $s = sign($k->{key});
    cmd_fails($s, qr/key nearly exhausted/, 'then refuses, with the error');
    like($s->{err}, qr/klms-state acknowledge \Q$k->{state}\E/, '... naming klms-state acknowledge PATH');
    is($s->{sig}, '', '... and no signature');
    is_deeply(next_and_generation($k->{state}), $before, '... and nothing written: same next index, same generation');

    # The three outputs agree on the threshold and on what waits.
    my $t = openssl_st('pkey', '-in', $k->{key}, '-text', '-noout');
    like($t->{out}, qr/^WARNING: only 3 signatures left \(threshold 3, /m, 'pkey -text: threshold 3');
    like($t->{out}, qr/^exhaustion: NOT ACKNOWLEDGED: signing refuses the last 3 until you run: klms-state acknowledge \Q$k->{state}\E$/m,
         '... and says signing waits');
    like(state_show($k->{state})->{out}, qr/^exhaustion:\s+WARNING: only 3 left; threshold 3 \(low_signatures_warning = 100.*NOT ACKNOWLEDGED/m,
         'klms-state show: threshold 3, not acknowledged');
    my $j = json_of($k->{state});
    ok($j->{exhaustion}{threshold} == 3 && $j->{exhaustion}{below_threshold} && $j->{exhaustion}{awaits_acknowledgement}
       && !$j->{signable}, 'show --json: threshold 3, below it, waiting, not signable');

    # A lease cut into the last 3 waits too.
    my $r = kstate('lease', '--count', '1', $k->{state}, "$dir/ack-lease.state");
    cmd_fails($r, qr/wait for an acknowledgement;\nrun: klms-state acknowledge \Q$k->{state}\E/, 'a lease into the last 3 is refused');
    ok(!-e "$dir/ack-lease.state", '... no lease file');
    is_deeply(next_and_generation($k->{state}), $before, '... and the parent gave up nothing');

    # Not trivially skipped: no --yes, a typed line naming the key, or the whole key id.
    $r = kstate('acknowledge', '--yes', $k->{state});
    cmd_fails($r, qr/acknowledge has no --yes/, 'acknowledge --yes is refused', status => 2);
    $r = run_cmd_st([ $klms_state, 'acknowledge', $k->{state} ], stdin => "yes\n");
    cmd_fails($r, qr/not confirmed/, 'a wrong answer is refused');
    like($r->{err}, qr/acknowledge \Q@{[substr($id, 0, 8)]}\E/, '... the question names the key id');
    (my $other = $id) =~ tr/0-9a-f/1-9a-f0/;
    $r = kstate('acknowledge', '--key-id', $other, $k->{state});
    cmd_fails($r, qr/belongs to another key/, 'a wrong --key-id is refused');
    $r = kstate('acknowledge', '--key-id', substr($id, 0, 8), $k->{state});
    cmd_fails($r, qr/64 hex digits/, 'an abbreviated --key-id is refused', status => 2);
    is_deeply(next_and_generation($k->{state}), $before, 'the refusals wrote nothing');
    cmd_fails(sign($k->{key}), qr/key nearly exhausted/, '... and signing still waits');

    $r = run_cmd_st([ $klms_state, 'acknowledge', $k->{state} ], stdin => 'acknowledge ' . substr($id, 0, 8) . "\n");
    cmd_ok($r, 'the typed confirmation acknowledges');
    my $after = next_and_generation($k->{state});
    is_deeply($after, [ 29, $before->[1] + 1 ], '... one write, no index moved');
    $t = openssl_st('pkey', '-in', $k->{key}, '-text', '-noout');
    like($t->{out}, qr/^WARNING: only 3 signatures left/m, 'pkey -text keeps the warning');
    like($t->{out}, qr/^exhaustion: acknowledged/m, '... and says it was acknowledged');
    ok(json_of($k->{state})->{exhaustion}{acknowledged} && json_of($k->{state})->{signable}, 'show --json: acknowledged, signable');
    cmd_ok(sign($k->{key}), "signs index $_") for 29 .. 31;
    cmd_fails(sign($k->{key}), qr/HSS\/LMS key exhausted/, 'then exhausted');
};

subtest 'low_signatures_warning = 0 never gates' => sub {
    my $off = conf_with('nowarn', 'low_signatures_warning = 0');
    my $k = genkey("$dir/nowarn.state", { env => { OPENSSL_CONF => $off } });
    cmd_ok($k->{r}, 'genpkey with low_signatures_warning = 0');
    cmd_ok(kstate('adopt', '--advance', '30', '--yes-i-destroyed-the-original', $k->{state}), 'advance to 30');
    # Read with the default configuration: T is the file's.
    my $t = openssl_st('pkey', '-in', $k->{key}, '-text', '-noout');
    unlike($t->{out}, qr/WARNING|exhaustion:/, 'pkey -text: no warning at 2 left');
    like(state_show($k->{state})->{out}, qr/^exhaustion:\s+no warning \(low_signatures_warning = 0\)$/m, 'klms-state show: no warning');
    is(json_of($k->{state})->{exhaustion}{threshold}, 0, 'show --json: threshold 0');
    cmd_ok(sign($k->{key}), "signs index $_") for 30 .. 31;
    cmd_fails(sign($k->{key}), qr/HSS\/LMS key exhausted/, 'then exhausted, never held back');
};

subtest 'a failed write or fsync carries the system reason' => sub {
    my $preload = join ':', grep { defined && length } $ENV{KLMS_SANITIZER_PRELOAD}, tool('klms_fault_shim');
    my $k = genkey("$dir/faults.state");
    cmd_ok($k->{r}, 'genpkey');
    for my $case ([ 'pwrite:1:ENOSPC', qr/No space left on device/ ], [ 'fsync:1:EIO', qr/Input\/output error/ ]) {
        my ($rule, $reason) = @$case;
        my $s = sign($k->{key}, { env => { LD_PRELOAD => $preload, KLMS_FAULT => $rule } });
        cmd_fails($s, qr/state file write failed/, "KLMS_FAULT=$rule: signing fails");
        like($s->{err}, qr/state file write or fsync failed: $reason/, '... with the system reason');
    }
};

SKIP: {
    my $why = $> != 0 ? 'not root' : undef;
    my $mnt = "$dir/full";
    mkdir $mnt, 0700 or die;
    $why //= 'mount -t tmpfs failed'
        if system('mount', '-t', 'tmpfs', '-o', 'size=64k,mode=0700', 'tmpfs', $mnt) != 0;
    if ($why) { diag "SKIP: a failed write's reason (ENOSPC): $why"; skip "ENOSPC: $why", 1 }
    subtest 'a failed write carries the system reason (ENOSPC)' => sub {
        system("dd if=/dev/zero of=$mnt/filler bs=4k 2>/dev/null");
        my $g = genkey("$mnt/k.state");
        cmd_fails($g->{r}, qr/state file write failed/, 'genpkey on a full file system fails');
        like($g->{r}{err}, qr/state file write or fsync failed: No space left on device/, '... naming ENOSPC');
    };
    system('umount', $mnt);
}

SKIP: {
    my $why = $> != 0 ? 'not root' : undef;
    my $o = "$dir/ovl";
    mkdir $o, 0700 or die;
    mkdir "$o/$_", 0700 or die for qw(lower upper work mnt);
    $why //= 'mount -t overlay failed'
        if system('mount', '-t', 'overlay', 'overlay', '-o', "lowerdir=$o/lower,upperdir=$o/upper,workdir=$o/work",
                  "$o/mnt") != 0;
    if ($why) { diag "SKIP: overlayfs: $why"; skip "overlayfs: $why", 1 }
    subtest 'overlayfs has no file handles: refused unless allowed' => sub {
        chmod 0700, "$o/mnt";
        my $g = genkey("$o/mnt/k.state");
        cmd_fails($g->{r}, qr/state file on a file system without file handles/, 'genpkey on overlayfs is refused');
        like($g->{r}{err}, qr/witness makes such a file safe.*allow_no_file_handles = 1/, '... naming the witness and the key');
        ok(!-e "$o/mnt/k.state", '... before creating anything');
        my $allow = conf_with('allow', 'allow_no_file_handles = 1');
        my $ok = genkey("$o/mnt/k.state", { env => { OPENSSL_CONF => $allow } });
        cmd_ok($ok->{r}, 'allowed by allow_no_file_handles = 1');
        cmd_ok(sign($ok->{key}, { env => { OPENSSL_CONF => $allow } }), '... and signs');
        cmd_fails(sign($ok->{key}), qr/without file handles/, 'without the key, signing refuses it');
        my $r = kstate('lease', '--count', '2', "$o/mnt/k.state", "$dir/ovl-lease.state");
        like($r->{err}, qr/without file handles/, 'klms-state lease refuses it');
        $r = kstate('lease', '--allow-no-file-handles', '--count', '2', "$o/mnt/k.state", "$dir/ovl-lease.state");
        is($r->{status}, 0, '... unless --allow-no-file-handles') or diag $r->{err};
    };
    system('umount', "$o/mnt");
}

done_testing();
