# Eight processes signing with one key at once (docs/state.md §1, §6, §8, §9): klms-evp-signer
# processes with several threads each (one-shot and streaming, one key object or one per thread)
# next to processes that run `openssl pkeyutl -sign` one after another. Every signature verifies,
# no index appears twice, and the state file's next equals the number of signatures made — or,
# with reservations, is at least that and exceeds it only by indices reserved and lost on exit.
use strict;
use warnings;
use Test::More;
use POSIX qw(_exit);
use Time::HiRes qw(time);
use KlmsTest;

my $signer = tool('klms-evp-signer');
my $openssl = $ENV{OPENSSL_BIN} // 'openssl';
my $dir = private_dir();
mkdir "$dir/state", 0700 or die;
$ENV{KLMS_STATE_DIR} = "$dir/state";
my $msg = "$dir/msg.bin";
spew($msg, join('', map { chr(($_ * 131 + 7) & 255) } 0 .. 2999));
my $short = "$dir/short.txt";  # pkeyutl without -rawin (EVP_PKEY_sign) takes at most 64 bytes
spew($short, "a short message for EVP_PKEY_sign\n");
sub message_of { return $_[0] =~ /-short\.bin$/ ? $short : $msg }

END { kill_spawned() }  # children still running (a failed or interrupted run)

sub genkey {
    my ($name, $lms, $ots) = @_;
    my $key = "$dir/$name.pem";
    my $state = "$dir/state/$name.state";
    my $r = openssl_st('genpkey', '-algorithm', 'HSS-LMS', '-pkeyopt', "lms:$lms", '-pkeyopt', "ots:$ots",
                    '-pkeyopt', "state-file:$state", '-out', $key);
    die "genpkey: $r->{err}" if $r->{status} != 0;
    my $pub = "$dir/$name.pub.pem";
    openssl_st('pkey', '-in', $key, '-pubout', '-out', $pub)->{status} == 0 or die;
    return { key => $key, pub => $pub, state => $state, shapes => state_shapes($lms, $ots) };
}

# One round: 4 EVP signer processes and 4 processes running openssl pkeyutl `per_cli` times, all
# started together. Returns { sigs => [ { file, q } ], printed => [q...], failures => [...] }.
sub round {
    my ($k, $tag, %o) = @_;
    my $out = "$dir/$tag";
    mkdir $out, 0700 or die;
    my (@pids, @failures);
    my @evp = (
        [ '--threads', 3 ],
        [ '--threads', 3, '--streaming', '--chunk', 100 ],
        [ '--threads', 3, '--decode-per-thread' ],
        [ '--threads', 2, '--streaming', '--chunk', 1000, '--decode-per-thread' ],
    );
    for my $i (0 .. $#evp) {
        push @pids, spawn_cmd([ $signer, '--key', $k->{key}, '--in', $msg, '--count', $o{per_thread}, '--out-dir', $out,
                                '--print-q', @{ $evp[$i] }, ($o{reserve} ? ('--reserve', $o{reserve}) : ()) ],
                              out => "$out/evp$i.out", err => "$out/evp$i.err");
    }
    for my $i (0 .. 3) {
        # A process that runs openssl pkeyutl -sign per_cli times, one after another.
        my $pid = fork() // die;
        if ($pid == 0) {
            my $bad = 0;
            for my $j (1 .. $o{per_cli}) {
                my $file = $j % 2 ? "$out/cli-$i-$j.bin" : "$out/cli-$i-$j-short.bin";
                my $r = run_cmd_st([ $openssl, 'pkeyutl', '-sign', ($j % 2 ? '-rawin' : ()), '-inkey', $k->{key},
                                  '-in', message_of($file), '-out', $file,
                                  ($o{reserve} ? ('-pkeyopt', "reserve:$o{reserve}") : ()) ]);
                if ($r->{status} != 0) { $bad++; spew("$out/cli-$i-$j.err", $r->{err}) }
            }
            _exit($bad ? 1 : 0);
        }
        push @pids, $pid;
    }
    for my $pid (@pids) {
        waitpid($pid, 0);
        push @failures, "process $pid: status $?" if $? != 0;
    }
    push @failures, map { "$_: " . slurp($_) } grep { -s } glob("$out/*.err");
    my (@sigs, @printed);
    for my $file (glob("$out/*.bin")) {
        my $sig = slurp($file);
        push @sigs, { file => $file, q => scalar state_sig_q($sig, $k->{shapes}) };
    }
    for my $file (glob("$out/evp*.out")) {
        push @printed, grep { /^\d+$/ } split /\n/, slurp($file);
    }
    return { sigs => \@sigs, printed => \@printed, failures => \@failures };
}

sub check_round {
    my ($k, $res, $expected, $reserve) = @_;
    is_deeply($res->{failures}, [], 'every process exited 0');
    is(scalar @{ $res->{sigs} }, $expected, "$expected signatures written");
    my (%count, @unparsed);
    for my $s (@{ $res->{sigs} }) {
        if (defined $s->{q}) { $count{ $s->{q} }++ } else { push @unparsed, $s->{file} }
    }
    is_deeply(\@unparsed, [], 'every signature has the key\'s shape');
    my @dups = grep { $count{$_} > 1 } sort { $a <=> $b } keys %count;
    is_deeply(\@dups, [], 'no index appears twice');
    my %printed = map { $_ => 1 } @{ $res->{printed} };
    my $evp_sigs = grep { $_->{file} =~ /\/sig-/ } @{ $res->{sigs} };
    is(scalar keys %printed, $evp_sigs, 'the EVP signers printed one q per signature file');
    is(scalar(grep { !$count{$_} } keys %printed), 0, '... the same q\'s the files hold');
    my $bad = 0;
    for my $s (@{ $res->{sigs} }) {
        my $r = run_cmd_st([ $openssl, 'pkeyutl', '-verify', '-rawin', '-pubin', '-inkey', $k->{pub}, '-in', message_of($s->{file}),
                          '-sigfile', $s->{file} ]);
        if ($r->{status} != 0) { $bad++; diag "$s->{file} (q $s->{q}): $r->{err}" }
    }
    is($bad, 0, "all $expected signatures verify");
    my $info = state_show($k->{state});
    is($info->{status}, 0, 'state file readable');
    if (!$reserve) {
        is($info->{next}, $expected, "state next == $expected signatures made");
        is_deeply([ sort { $a <=> $b } keys %count ], [ 0 .. $expected - 1 ], 'indices 0 .. n-1, no gap');
    } else {
        cmp_ok($info->{next}, '>=', $expected, 'state next >= signatures made');
        my @q = sort { $a <=> $b } keys %count;
        cmp_ok($info->{next}, '>', $q[-1], 'state next beyond every index used');
        # Lost on exit: at most reserve-1 per process that signed (4 EVP signers + every CLI run).
        my $processes = 4 + ($expected - $res->{evp_expected});
        cmp_ok($info->{next} - $expected, '<=', ($reserve - 1) * $processes,
               "lost reservations (" . ($info->{next} - $expected) . ") within (reserve-1) x $processes processes");
    }
}

my $t0 = time;
subtest 'L = 1, reserve 1: 8 processes, 11 threads' => sub {
    my $k = genkey('l1', 'LMS_SHA256_M32_H10', 'LMOTS_SHA256_N32_W4');
    my $res = round($k, 'round1', per_thread => 15, per_cli => 8);
    check_round($k, $res, 11 * 15 + 4 * 8);
};
note(sprintf('round 1: %.1f s', time - $t0));

$t0 = time;
subtest 'L = 2 (LSH-256), reserve 4: lower trees rebuilt by racing processes' => sub {
    my $k = genkey('l2', 'LMS_LSH256_M32_H5,LMS_LSH256_M32_H5', 'LMOTS_LSH256_N32_W4');
    my $res = round($k, 'round2', per_thread => 15, per_cli => 6, reserve => 4);
    $res->{evp_expected} = 11 * 15;
    check_round($k, $res, 11 * 15 + 4 * 6, 4);
    my %lower = map { int($_->{q} / 32) => 1 } grep { defined $_->{q} } @{ $res->{sigs} };
    cmp_ok(scalar keys %lower, '>=', 3, 'signatures came from several lower-level trees');
};
note(sprintf('round 2: %.1f s', time - $t0));

done_testing();
