# The signing state through the command line and real processes: exhaustion (docs/state.md §5),
# reservations (§8), `klms-state show/adopt` (§4), seeded keys (§13), the deterministic
# randomizer after a lost cache (§11), and the lock other processes see (§6).
use strict;
use warnings;
use Test::More;
use File::Copy qw(copy);
use Fcntl qw(F_WRLCK F_UNLCK SEEK_SET);
use POSIX qw(WNOHANG);
use Time::HiRes qw(sleep time);
use KlmsTest;

my $dir = private_dir();
my $state_dir = "$dir/default-state";
mkdir $state_dir, 0700 or die;
$ENV{KLMS_STATE_DIR} = $state_dir;
my $msg = "$dir/msg.txt";
spew($msg, "admin recipe message\n");
my $signer = tool('klms-evp-signer');
my $klms_state = tool('klms-state');

END { kill_spawned() }  # children still running (a failed or interrupted run)

my $keyno = 0;
sub genkey {
    my (%o) = @_;
    my $name = $o{name} // 'k' . ++$keyno;
    my $key = "$dir/$name.pem";
    my $state = $o{state} // "$dir/$name.state";
    my @opts = ('-pkeyopt', 'lms:' . ($o{lms} // 'LMS_SHA256_M32_H5'), '-pkeyopt', 'ots:' . ($o{ots} // 'LMOTS_SHA256_N32_W4'),
                '-pkeyopt', "state-file:$state", map { ('-pkeyopt', $_) } @{ $o{extra} // [] });
    my $r = openssl_st('genpkey', '-algorithm', 'HSS-LMS', @opts, '-out', $key, $o{cmd} // {});
    die "genpkey: $r->{err}" if $r->{status} != 0 && !$o{may_fail};
    return { r => $r, key => $key, state => $state, name => $name };
}

my $signo = 0;
sub sign {
    my ($key, %o) = @_;
    return state_sign(%o, key => $key, in => $o{in} // $msg, out => "$dir/sig" . ++$signo . '.bin');
}

sub verifies {
    my ($key, $sigfile, $in) = @_;
    return state_verifies($key, $in // $msg, $sigfile);
}

sub evp_signer {
    my ($key, @args) = @_;
    my $r = run_cmd_st([$signer, '--key', $key, '--in', $msg, '--print-q', @args]);
    $r->{q} = [ map { /^(\d+)/ ? $1 : () } grep { !/^fail/ } split /\n/, $r->{out} ];
    return $r;
}

subtest 'exhaustion through the CLI: an H5 key signs exactly 32 times' => sub {
    my $k = genkey();
    # Its last 3 wait for the acknowledgement (docs/state.md §5; state_misuse.t tests the gate).
    my $ack = run_cmd_st([$klms_state, 'acknowledge', '--key-id', state_show($k->{state})->{key_id}, $k->{state}]);
    is($ack->{status}, 0, 'klms-state acknowledge --key-id') or diag $ack->{err};
    my (%seen, $bad, $unverified);
    for my $i (0 .. 31) {
        my $s = sign($k->{key}, plain => $i % 3 == 0);  # EVP_PKEY_sign and streaming digest-sign
        if ($s->{status} != 0) { $bad++; diag $s->{err}; next }
        $seen{ $s->{q} }++;
        $unverified++ unless $i % 4 != 0 || verifies($k->{key}, $s->{file});
    }
    ok(!$bad, '32 signatures');
    is_deeply([ sort { $a <=> $b } keys %seen ], [ 0 .. 31 ], 'indices 0..31, each once');
    ok(!$unverified, 'they verify');
    my $last = sign($k->{key});
    isnt($last->{status}, 0, 'the 33rd fails');
    like($last->{err}, qr/HSS\/LMS key exhausted/, '... with the exhaustion error');
    is(length $last->{sig}, 0, '... and no signature');
    my $t = openssl_st('pkey', '-in', $k->{key}, '-text', '-noout');
    like($t->{out}, qr/^remaining signatures: 0$/m, 'pkey -text: remaining 0');
    like($t->{out}, qr/^next index: 32$/m, 'pkey -text: next 32');
    my $info = state_show($k->{state});
    is($info->{remaining}, 0, 'klms-state: remaining 0');
    like($info->{out}, qr/^remaining:\s+0 \(exhausted\)/m, 'klms-state: exhausted');
    my $e = evp_signer($k->{key});
    isnt($e->{status}, 0, 'EVP signer fails too');
    like($e->{err}, qr/HSS\/LMS key exhausted/, '... with the exhaustion error');

    # A reservation larger than what is left is refused (it would burn the rest of the key), and
    # writes nothing: with reserve 10 an H5 key signs 30 times, then reserve 2 signs the last two.
    my $k2 = genkey();
    $ack = run_cmd_st([$klms_state, 'acknowledge', '--key-id', state_show($k2->{state})->{key_id}, $k2->{state}]);
    is($ack->{status}, 0, 'the second key acknowledged too') or diag $ack->{err};
    my $r = evp_signer($k2->{key}, '--reserve', '10', '--count', '34', '--keep-going');
    isnt($r->{status}, 0, 'reserve 10, 34 attempts: fails at the end');
    is(scalar @{ $r->{q} }, 30, '30 signatures');
    is_deeply([ sort { $a <=> $b } @{ $r->{q} } ], [ 0 .. 29 ], 'indices 0..29');
    is(scalar(() = $r->{out} =~ /^fail /mg), 4, 'four refused');
    like($r->{err}, qr/reservation too large/, 'the reservation error');
    is(state_show($k2->{state})->{next}, 30, 'state next 30: the refusals wrote nothing');
    my $r2 = evp_signer($k2->{key}, '--reserve', '2', '--count', '3', '--keep-going');
    is_deeply([ sort { $a <=> $b } @{ $r2->{q} } ], [ 30, 31 ], 'reserve 2 signs the last two');
    like($r2->{err}, qr/HSS\/LMS key exhausted/, 'then the exhaustion error');
    is(state_show($k2->{state})->{next}, 32, 'state next 32');
};

subtest 'reservations: one durable write per batch, the rest lost on exit' => sub {
    my $k = genkey(lms => 'LMS_SHA256_M32_H10');
    my $gen0 = state_show($k->{state})->{generation};
    my $r = evp_signer($k->{key}, '--reserve', '10', '--count', '3');
    is($r->{status}, 0, 'klms-evp-signer --reserve 10 --count 3') or diag $r->{err};
    is_deeply($r->{q}, [ 0, 1, 2 ], 'indices 0, 1, 2');
    my $info = state_show($k->{state});
    is($info->{next}, 10, 'next jumped by exactly 10');
    is($info->{generation}, $gen0 + 1, 'with one slot write');
    $r = evp_signer($k->{key}, '--reserve', '10', '--count', '3', '--streaming');
    is_deeply($r->{q}, [ 10, 11, 12 ], 'the next process starts after the lost indices 3..9');
    is(state_show($k->{state})->{next}, 20, 'next 20');

    # Threads of one process share the reservation.
    $r = evp_signer($k->{key}, '--reserve', '10', '--count', '5', '--threads', '4');
    is($r->{status}, 0, '4 threads x 5 signatures, reserve 10') or diag $r->{err};
    is_deeply([ sort { $a <=> $b } @{ $r->{q} } ], [ 20 .. 39 ], 'two batches, every index used once');
    is(state_show($k->{state})->{next}, 40, 'next 40');

    my $s = sign($k->{key}, pkeyopt => ['reserve:10']);
    is($s->{status}, 0, 'openssl pkeyutl -pkeyopt reserve:10') or diag $s->{err};
    is($s->{q}, 40, 'index 40');
    is(state_show($k->{state})->{next}, 50, 'next 50: 9 reserved indices lost on exit');

    # The configuration key of the provider section.
    my $conf = "$dir/reserve.cnf";
    my $text = slurp(openssl_conf());
    $text =~ s/^\[klms_sect\]\n/[klms_sect]\nreserve = 4\n/m or die;
    spew($conf, $text);
    $s = sign($k->{key}, env => { OPENSSL_CONF => $conf });
    is($s->{status}, 0, 'reserve = 4 in the configuration') or diag $s->{err};
    is($s->{q}, 50, 'index 50');
    is(state_show($k->{state})->{next}, 54, 'next 54');
    $s = sign($k->{key}, env => { OPENSSL_CONF => $conf }, pkeyopt => ['reserve:1']);
    is(state_show($k->{state})->{next}, 55, '-pkeyopt reserve:1 overrides the configuration');

    $s = sign($k->{key}, pkeyopt => ['reserve:0']);
    isnt($s->{status}, 0, 'reserve:0 refused');
    like($s->{err}, qr/reserve/, '... naming the parameter');
    is(state_show($k->{state})->{next}, 55, 'nothing reserved');
};

subtest 'klms-state show and adopt after a deliberate move' => sub {
    my $k = genkey();
    is(sign($k->{key})->{q}, 0, 'signs index 0');
    my $info = state_show($k->{state});
    like($info->{out}, qr/^state file:\s+\Q$k->{state}\E$/m, 'show: path');
    like($info->{out}, qr/^key id:\s+[0-9a-f]{64}$/m, 'show: key id');
    like($info->{out}, qr/^recorded:\s+device \d+ \(\d+:\d+\), inode \d+$/m, 'show: recorded device/inode');
    like($info->{out}, qr/^copied\/restored:\s+no$/m, 'show: not copied');

    # "Move to another file system": a new file with the same contents, the original removed.
    my $moved = "$dir/moved.state";
    copy($k->{state}, $moved) or die;
    chmod 0600, $moved;
    unlink $k->{state};
    my $s = sign($k->{key}, pkeyopt => ["state-file:$moved"]);
    isnt($s->{status}, 0, 'the moved file is refused');
    like($s->{err}, qr/state file copied, restored or moved/, '... as copied');
    my $before = slurp($moved);

    my $r = run_cmd_st([$klms_state, 'adopt', $moved], stdin => '');
    is($r->{status}, 1, 'adopt without confirmation fails');
    like($r->{err}, qr/original is destroyed/, 'it explains what adoption means');
    like($r->{err}, qr/not confirmed/, '... and that nothing changed');
    $r = run_cmd_st([$klms_state, 'adopt', $moved], stdin => "adopt 00000000\n");
    is($r->{status}, 1, 'a wrong confirmation fails');
    is(slurp($moved), $before, 'the file is unchanged');

    my $other = genkey();
    my $other_id = state_show($other->{state})->{key_id};
    $r = run_cmd_st([$klms_state, 'adopt', '--key-id', $other_id, '--yes-i-destroyed-the-original', $moved]);
    is($r->{status}, 1, 'adopt for another key id fails');
    like($r->{err}, qr/belongs to another key/, '... as foreign');
    is(slurp($moved), $before, 'the file is unchanged');

    my $id8 = substr($info->{key_id}, 0, 8);
    $r = run_cmd_st([$klms_state, 'adopt', $moved], stdin => "adopt $id8\n");
    is($r->{status}, 0, 'adopt with the typed confirmation') or diag $r->{err};
    like($r->{err}, qr/adopted .*next index 1/, 'reports the next index');
    my $after = state_show($moved);
    is($after->{copied}, 0, 'no longer looks copied');
    isnt($after->{instance}, $info->{instance}, 'new instance id');
    $s = sign($k->{key}, pkeyopt => ["state-file:$moved"]);
    is($s->{status}, 0, 'signs with the adopted file') or diag $s->{err};
    is($s->{q}, 1, 'at index 1');
    ok(verifies($k->{key}, $s->{file}), 'verifies');

    # A restore from a backup is behind: adopt --advance skips what may have been used since.
    copy($moved, "$dir/backup.state") or die;
    my @used = map { sign($k->{key}, pkeyopt => ["state-file:$moved"])->{q} } 1 .. 3;
    is_deeply(\@used, [ 2, 3, 4 ], 'signs 2, 3, 4 after the backup');
    copy("$dir/backup.state", "$dir/restore.tmp") or die;
    chmod 0600, "$dir/restore.tmp";
    rename "$dir/restore.tmp", $moved or die;
    like(sign($k->{key}, pkeyopt => ["state-file:$moved"])->{err}, qr/copied, restored or moved/, 'restored: refused');
    $r = run_cmd_st([$klms_state, 'adopt', '--yes-i-destroyed-the-original', '--advance', '3', $moved]);
    is($r->{status}, 0, 'adopt --yes-i-destroyed-the-original --advance 3') or diag $r->{err};
    is(state_show($moved)->{next}, 5, 'next 2 + 3 = 5');
    $s = sign($k->{key}, pkeyopt => ["state-file:$moved"]);
    is($s->{q}, 5, 'the next signature uses a fresh index');

    $r = run_cmd_st([$klms_state]);
    is($r->{status}, 2, 'usage error: exit 2');
    $r = run_cmd_st([$klms_state, 'show', "$dir/none.state"]);
    is($r->{status}, 1, 'show of a missing file: exit 1');
    like($r->{err}, qr/state file missing/, '... missing');
};

subtest 'seeded keys: marked, refused without KLMS_ALLOW_SEEDED_KEYS=1, reproducible' => sub {
    my $seed = '5eed' x 16;
    my $id = '1d' x 16;
    my @extra = ("hexseed:$seed", "hexidentifier:$id");
    my $k = genkey(name => 'seeded1', extra => \@extra);
    my $t = openssl_st('pkey', '-in', $k->{key}, '-text', '-noout');
    like($t->{out}, qr/^seeded: yes/m, 'pkey -text marks the key as seeded');
    my $s = sign($k->{key}, env => { KLMS_ALLOW_SEEDED_KEYS => undef });
    isnt($s->{status}, 0, 'refused without KLMS_ALLOW_SEEDED_KEYS');
    like($s->{err}, qr/seeded key refused/, '... as a seeded key');
    is(length $s->{sig}, 0, 'no signature');
    $s = sign($k->{key}, env => { KLMS_ALLOW_SEEDED_KEYS => '0' });
    like($s->{err}, qr/seeded key refused/, 'KLMS_ALLOW_SEEDED_KEYS=0 refuses too');
    my $used = state_show($k->{state})->{next};
    $s = sign($k->{key}, env => { KLMS_ALLOW_SEEDED_KEYS => '1' });
    is($s->{status}, 0, 'signs with KLMS_ALLOW_SEEDED_KEYS=1') or diag $s->{err};
    is($s->{q}, $used, 'at the next index');

    # Generated again from the same seed: the same key, a fresh state file at index 0.
    my $k2 = genkey(name => 'seeded2', extra => \@extra);
    my $p1 = openssl_st('pkey', '-in', $k->{key}, '-pubout');
    my $p2 = openssl_st('pkey', '-in', $k2->{key}, '-pubout');
    is($p2->{out}, $p1->{out}, 'same public key');
    is(state_show($k2->{state})->{next}, 0, 'fresh state at 0');
    # The same index signs the same bytes (deterministic randomizer, docs/state.md §11), whenever it runs.
    sign($k2->{key}, env => { KLMS_ALLOW_SEEDED_KEYS => '1' }) for 1 .. $used;
    sleep 1.1;
    my $s2 = sign($k2->{key}, env => { KLMS_ALLOW_SEEDED_KEYS => '1', TZ => 'Asia/Seoul' });
    is($s2->{q}, $s->{q}, 'same index');
    ok($s2->{sig} eq $s->{sig}, 'identical signature bytes');
};

subtest 'a lost tree cache re-signs lower-level keys with the same bytes (§11)' => sub {
    my $lms = 'LMS_SHA256_M32_H5,LMS_SHA256_M32_H5';
    my $ots = 'LMOTS_SHA256_N32_W4';
    my $k = genkey(lms => $lms, ots => $ots);
    my $shapes = state_shapes($lms, $ots);
    my $s0 = sign($k->{key}, shapes => $shapes);
    is($s0->{status}, 0, 'L = 2 signs') or diag $s0->{err};
    my @caches = glob("$k->{state}.cache*");
    ok(scalar @caches, 'cache files exist: ' . join(' ', map { s/.*\///r } @caches));
    unlink @caches;
    my $s1 = sign($k->{key}, shapes => $shapes);
    is($s1->{status}, 0, 'signs without a cache') or diag $s1->{err};
    is($s0->{q}, 0, 'index 0');
    is($s1->{q}, 1, 'index 1');
    my $upper = 4 + (4 + (4 + 32 + 67 * 32) + 4 + 5 * 32) + (4 + 4 + 16 + 32);
    ok(substr($s0->{sig}, 4, $upper - 4) eq substr($s1->{sig}, 4, $upper - 4),
       'the signed lower-level public key is byte-identical after the rebuild');
    ok(verifies($k->{key}, $_->{file}), "q $_->{q} verifies") for $s0, $s1;
};

subtest 'signers wait for a lock held by another process (§6)' => sub {
    my $k = genkey();
    is(sign($k->{key})->{status}, 0, 'signs');
    open my $fh, '+<', $k->{state} or die;
    my $F_OFD_SETLK = 37;  # Linux
    my $lock = pack('s s x4 q q i x4', F_WRLCK, SEEK_SET, 0, 0, 0);
    ok(fcntl($fh, $F_OFD_SETLK, $lock), 'an open-file-description write lock on the state file');
    my $out = "$dir/locked.sig";
    my $pid = spawn_cmd([ $ENV{OPENSSL_BIN} // 'openssl', 'pkeyutl', '-sign', '-rawin', '-inkey', $k->{key},
                          '-in', $msg, '-out', $out ], err => "$dir/locked.err");
    # /proc/locks lists a process blocked on a lock with "->": wait until the signer is.
    my $ino = (stat $k->{state})[1];
    my $blocked = 0;
    for (1 .. 600) {
        last if waitpid($pid, WNOHANG) != 0;
        open my $locks, '<', '/proc/locks' or last;
        $blocked = grep { /->\s+OFDLCK\s+ADVISORY\s+(?:READ|WRITE)\s+\S+\s+[0-9a-f]+:[0-9a-f]+:$ino\s/ } <$locks>;
        last if $blocked;
        sleep 0.05;
    }
    ok($blocked, 'the signer blocks on the state file\'s lock (seen in /proc/locks)');
    sleep 0.3;
    is(waitpid($pid, WNOHANG), 0, 'and is still waiting');
    ok(!-s $out, 'no signature yet');
    my $unlock = pack('s s x4 q q i x4', F_UNLCK, SEEK_SET, 0, 0, 0);
    fcntl($fh, $F_OFD_SETLK, $unlock) or die;
    close $fh;
    my $t0 = time;
    waitpid($pid, 0);
    is($? >> 8, 0, 'it signs once the lock is released') or diag slurp("$dir/locked.err");
    is(state_sig_q(slurp($out)), 1, 'index 1');
};

subtest 'no clock: the provider reads no time while signing or handling state (§14)' => sub {
    my $probe = $ENV{KLMS_CLOCK_PROBE};
    if (!$probe) { fail('klms_clock_probe not built (no KLMS_CLOCK_PROBE)'); return }
    my $preload = join ':', grep { defined && length } $ENV{KLMS_SANITIZER_PRELOAD}, $probe;
    my $log = "$dir/clock.log";
    my %env = (LD_PRELOAD => $preload, KLMS_CLOCK_PROBE_LOG => $log);

    # The probe sees clock reads: OpenSSL's own DRBG reads time() while key generation draws a seed.
    my $g = genkey(name => 'clock-control', cmd => { env => { %env, KLMS_CLOCK_PROBE_MATCH => 'libcrypto' } });
    is($g->{r}{status}, 0, 'genpkey under the probe');
    SKIP: {
        # A sanitizer runtime intercepts time() and clock_gettime() itself: the probe then sees the
        # runtime as the caller. It still sees std::chrono, which no sanitizer intercepts.
        skip 'the sanitizer runtime hides C clock callers from the probe', 1 if $ENV{KLMS_SANITIZER_PRELOAD};
        like(-e $log ? slurp($log) : '', qr/klms_clock_probe: \S+ called from \S*libcrypto/,
             'control: the probe reports libcrypto\'s clock reads');
    }
    unlink $log;

    # Key generation with a progress callback paces the progress report with a timed wait; that is
    # not state and does not change the key (seeded keys are reproducible, tested above).
    my $k = genkey(name => 'clock', lms => 'LMS_SHA256_M32_H5,LMS_SHA256_M32_H5', cmd => { env => \%env });
    note('genpkey: ' . (-e $log ? slurp($log) : 'no clock reads'));
    unlink $log;

    my $match = 'klms.so,klms-state,klms-evp-signer';
    my %probe = (%env, KLMS_CLOCK_PROBE_MATCH => $match);
    my @runs = (
        [ 'pkeyutl -sign -rawin', sub { sign($k->{key}, env => \%probe) } ],
        [ 'pkeyutl -sign (EVP_PKEY_sign), reserve 3', sub { sign($k->{key}, plain => 1, pkeyopt => ['reserve:3'], env => \%probe) } ],
        [ 'pkey -text', sub { openssl_st('pkey', '-in', $k->{key}, '-text', '-noout', { env => \%probe }) } ],
        [ 'EVP signer, 2 threads, streaming, across lower trees', sub {
              run_cmd_st([$signer, '--key', $k->{key}, '--in', $msg, '--count', '20', '--threads', '2', '--streaming',
                       '--reserve', '3', '--verify'], env => \%probe) } ],
        [ 'klms-state show', sub { run_cmd_st([$klms_state, 'show', $k->{state}], env => \%probe) } ],
        [ 'klms-state adopt', sub { run_cmd_st([$klms_state, 'adopt', '--yes-i-destroyed-the-original', $k->{state}],
                                            env => \%probe) } ],
    );
    for my $run (@runs) {
        my $r = $run->[1]->();
        is($r->{status}, 0, "$run->[0] runs under the probe") or diag $r->{err};
    }
    is(-e $log ? slurp($log) : '', '', "no clock read by $match");
    my $s = sign($k->{key}, shapes => state_shapes('LMS_SHA256_M32_H5,LMS_SHA256_M32_H5', 'LMOTS_SHA256_N32_W4'));
    ok(verifies($k->{key}, $s->{file}), 'and the key still signs after all that');
};

done_testing();
