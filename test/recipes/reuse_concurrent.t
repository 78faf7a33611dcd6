# Concurrent signers under SIGKILL, judged by the ledger. Many signers at once on one
# L = 2 key, mixing processes and threads: klms-evp-signer with 1-4 threads (one key object, or one
# per thread), reservations of 1, 3, 8 or 17, one-shot or streaming, and openssl pkeyutl / dgst
# processes; signers are SIGKILLed at random instants. Every signature that left a process (the
# signer writes each one, with its own message, atomically) goes to the independent ledger
# (test/support/Ledger.pm; the signatures of a collision verified by the real openssl); at the
# end no one-time key signed two messages and a normal signature has an index beyond all of them.
#
# Sizes: KLMS_REUSE_SIGNERS (at once, default 6), KLMS_REUSE_KILLS (default 40),
# KLMS_REUSE_SECONDS (stop starting signers after this, default 60). scripts/stress-state.sh
# --size full runs 32 signers and 1,000 kills.
use strict;
use warnings;
use Test::More;
use POSIX qw(WNOHANG);
use Time::HiRes qw(sleep time);
use KlmsTest;
use ReuseTest;

my $at_once = $ENV{KLMS_REUSE_SIGNERS} // 6;
my $kills_wanted = $ENV{KLMS_REUSE_KILLS} // 40;
my $time_limit = $ENV{KLMS_REUSE_SECONDS} // 60;
my $dir = private_dir();
mkdir "$dir/st", 0700 or die;
mkdir "$dir/out", 0700 or die;
my $out = "$dir/out";
my $key = "$dir/key.pem";
my $g = hss_key($key, "$dir/st/key.state", 'LMS_SHA256_M32_H10,LMS_SHA256_M32_H10', 'LMOTS_SHA256_N32_W4');
is($g->{status}, 0, 'genpkey L = 2, H10/H10') or BAIL_OUT($g->{err});
my $pub = pubout($key);
my $signer = tool('klms-evp-signer');
my $openssl = $ENV{OPENSSL_BIN} // 'openssl';

END { kill_spawned() }

my ($kills, $started, $finished, $seq) = (0, 0, 0, 0);
my (@unexpected, %kinds);
my %running;
my $t0 = time;

sub start_one {
    my $n = ++$seq;
    my $roll = rand();
    my ($argv, $kind);
    if ($roll < 0.15) {
        # openssl pkeyutl (one-shot) or dgst (streaming): one signature per process.
        spew("$out/msg-cli$n.bin", "cli signer $n\n");
        if (rand() < 0.5) {
            $argv = [$openssl, 'pkeyutl', '-sign', '-rawin', '-inkey', $key, '-in', "$out/msg-cli$n.bin", '-out', "$out/sig-cli$n.tmp"];
            $kind = 'pkeyutl';
        } else {
            $argv = [$openssl, 'dgst', '-sign', $key, '-out', "$out/sig-cli$n.tmp", "$out/msg-cli$n.bin"];
            $kind = 'dgst';
        }
    } else {
        my $threads = 1 + int(rand(4));
        my $reserve = (1, 3, 8, 17)[int(rand(4))];
        my @a = ('--key', $key, '--message', "signer $n", '--unique-messages', '--out-dir', $out, '--count', 1 + int(rand(25)),
                 '--threads', $threads, '--reserve', $reserve, '--delay-us', int(rand(3000)));
        push @a, '--decode-per-thread' if $threads > 1 && rand() < 0.4;
        push @a, '--streaming', '--chunk', 1 + int(rand(64)) if rand() < 0.35;
        $argv = [$signer, @a];
        $kind = "evp threads $threads reserve $reserve" . (grep({ $_ eq '--streaming' } @a) ? ' streaming' : '');
    }
    my $pid = spawn_cmd($argv, err => "$dir/err$n");
    $kinds{ $kind =~ s/ reserve \d+//r }++;
    # Most signers are killed at a random instant; some run to the end.
    my $deadline = rand() < 0.8 ? time + rand(0.25) : undef;
    $running{$pid} = { n => $n, deadline => $deadline, kind => $kind, cli => $kind =~ /^(pkeyutl|dgst)$/ };
    $started++;
}

sub settle {
    my ($run, $how) = @_;
    my $n = $run->{n};
    # An openssl CLI signer wrote its output to a temporary name: only a complete run's file
    # counts (a killed one may leave a part; that index left the process, see below).
    if ($run->{cli}) {
        if ($how eq 'exited' && -s "$out/sig-cli$n.tmp") { rename "$out/sig-cli$n.tmp", "$out/sig-cli$n.bin" }
        elsif (-e "$out/sig-cli$n.tmp") { rename "$out/sig-cli$n.tmp", "$out/partial-cli$n.bin" }
    }
    unlink "$dir/err$n";
}

while (1) {
    my $more = $kills < $kills_wanted && time - $t0 < $time_limit;
    start_one() while $more && keys(%running) < $at_once;
    last if !%running;
    sleep 0.002;
    for my $pid (keys %running) {
        my $run = $running{$pid};
        my $done = waitpid($pid, WNOHANG);
        if ($done == $pid) {
            $finished++;
            push @unexpected, "signer $run->{n} ($run->{kind}) exited with $?: " . (-e "$dir/err$run->{n}" ? slurp("$dir/err$run->{n}") : '')
                if $? != 0;
            settle($run, 'exited');
        } elsif (defined $run->{deadline} && time >= $run->{deadline}) {
            kill 'KILL', $pid;
            waitpid($pid, 0);
            if (($? & 127) == 9) { $kills++; settle($run, 'killed') }
            else { $finished++; settle($run, 'exited') }
        } else {
            next;
        }
        delete $running{$pid};
    }
}

# The ledger over everything that left a process.
my $ledger = reuse_ledger($pub, verify_mode => 'collisions');
my @sigs = glob("$out/sig-*.bin");
for my $s (@sigs) {
    (my $m = $s) =~ s{/sig-([^/]*)\z}{/msg-$1};
    $ledger->add(sig => slurp($s), msg => slurp($m), label => $s);
}
my $max = $ledger->summary->{max_q};
for my $p (glob("$out/partial-*.bin")) {  # a part written by a killed openssl: its index was used
    my $q = $ledger->prefix_q(slurp($p));
    $max = $q if defined $q && (!defined $max || $q > $max);
}
my $s = $ledger->summary;
note(sprintf('%d signers (%s), %d killed, %d finished, %d signatures, %.1f s', $started,
             join(', ', map { "$kinds{$_} $_" } sort keys %kinds), $kills, $finished, $s->{signatures}, time - $t0));
cmp_ok($kills, '>=', $kills_wanted, "at least $kills_wanted SIGKILLs");
is_deeply(\@unexpected, [], 'no signer stopped on an error');
cmp_ok($s->{signatures}, '>', 0, 'signatures were made');
is($s->{rejected}, 0, 'every signature file is a well-formed signature');
ledger_ok($ledger, 'all concurrent signers');
# A normal signature afterwards: beyond everything that left a process.
spew("$dir/last.msg", 'after the storm');
my $last = openssl_limited(120, 'pkeyutl', '-sign', '-rawin', '-inkey', $key, '-in', "$dir/last.msg", '-out', "$dir/last.sig");
is($last->{status}, 0, 'a normal signature afterwards') or diag $last->{err};
my $la = $ledger->add(sig => slurp("$dir/last.sig"), msg => 'after the storm', label => 'last');
ok($la->{ok} && (!defined $max || $la->{q} > $max), "its index ($la->{q}) is beyond every index that left a process (" . ($max // '-') . ')');
reuse_summary(kills => $kills, signers => $started, signatures => $s->{signatures}, pairs => $s->{pairs}, reuses => $s->{reuses});
done_testing();
