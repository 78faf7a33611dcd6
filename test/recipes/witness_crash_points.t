# The reuse search over the witness's steps (docs/state.md "The witness"), enumerated, not sampled.
# A signature with a TPM-witnessed key (a real swtpm) is traced with the fault shim
# (test/support/fault_shim.c) twice: once counting its durable steps on the state file, once its
# TPM commands (every write on the TPM's socket is one command sent: define, read, increment). For
# every step k the signature runs again and is SIGKILLed just before step k and, in a second run,
# just after it. After each kill the key signs twice more (a file its witness says is behind is
# resynced first, as the documented recovery says), and:
#   - every signature that left any process goes to the independent ledger
#     (test/support/Ledger.pm, verified by the real openssl): no one-time key signs twice;
#   - the signatures after the kill have indices beyond every index that left a process before;
#   - nothing hangs (every command runs under timeout).
# Then every byte of the witness record (bytes 280..359 of each block, file_format.h) is flipped
# in both blocks: the file signs nothing.
use strict;
use warnings;
use Test::More;
use File::Copy qw(copy);
use KlmsTest;
use ReuseTest;
use SwTpm;

unless (SwTpm::available()) {
    BAIL_OUT('swtpm / tpm2-tools not installed (scripts/install-deps.sh installs them)') if $ENV{CI};
    plan skip_all => 'swtpm / tpm2-tools not installed: the witness cannot be tested here';
}

my $dir = private_dir();
my $tpm = SwTpm->start($dir);
my $st = "$dir/st";
mkdir $st, 0700 or die;
my $state_tool = tool('klms-state');
my $key = "$dir/k.pem";
my $state = "$st/k.state";
my $r = hss_key($key, $state, 'LMS_SHA256_M32_H10', 'LMOTS_SHA256_N32_W8', 'witness:tpm', { env => $tpm->env });
die "genpkey: $r->{err}" if $r->{status} != 0;
my $ledger = reuse_ledger(pubout($key));
my ($seq, $highest, $kills, $resyncs) = (0, -1, 0, 0);
# Kills after a step as well as before it; sanitizer builds (every process several times slower)
# kill before each step only by default (a kill after step k is close to one before step k + 1):
# KLMS_REUSE_CRASH_AFTER=all|none, as in reuse_crash_points.t.
my $after_mode = $ENV{KLMS_REUSE_CRASH_AFTER} // ($ENV{KLMS_SANITIZER_PRELOAD} ? 'none' : 'all');
my @positions = $after_mode eq 'all' ? (0, 1) : (0);

sub sign_once {
    my (%env) = @_;
    my $i = ++$seq;
    my $m = "$dir/m$i.msg";
    spew($m, "image $i\n" . ('y' x ($i % 61)));
    my $s = openssl_limited(60, 'pkeyutl', '-sign', '-rawin', '-inkey', $key, '-in', $m, '-out', "$m.sig",
                            { env => { %{ $tpm->env }, %env } });
    my $q;
    if (-s "$m.sig") {
        my $a = $ledger->add(sig => slurp("$m.sig"), msg => slurp($m), label => "m$i");
        $q = $a->{q} if $a->{ok};
    }
    return ($s, $q);
}

# Two more signatures after a kill: each beyond every index that left a process before.
sub sign_on {
    my ($name) = @_;
    for my $n (1, 2) {
        my ($s, $q) = sign_once();
        if ($s->{status} != 0 && $s->{err} =~ /behind its witness/) {
            my $y = run_limited(60, [$state_tool, 'resync', $state], env => $tpm->env);
            return fail("$name: resync: $y->{err}") if $y->{status} != 0;
            $resyncs++;
            ($s, $q) = sign_once();
        }
        return fail("$name: signature $n after the kill: $s->{err}") if $s->{status} != 0 || !defined $q;
        return fail("$name: index $q after the kill is not beyond $highest") if $q <= $highest;
        $highest = $q;
    }
    return 1;
}

for my $kind (['state file', "$st/"], ['TPM command', 'socket:']) {
    my ($what, $match) = @$kind;
    my $trace = "$dir/trace-$what.txt";
    $trace =~ s/ /-/g;
    unlink $trace;
    my ($s, $q) = sign_once(fault_shim_env(KLMS_KILL_MATCH => $match, KLMS_KILL_TRACE => $trace)->%*);
    is($s->{status}, 0, "$what: the trace run signs") or diag($s->{err});
    $highest = $q if defined $q && $q > $highest;
    my @steps = grep { /\S/ } split /\n/, (-e $trace ? slurp($trace) : '');
    my $n = scalar @steps;
    cmp_ok($n, '>', 3, "$what: a witnessed signature has $n steps");
    my $failed = 0;
    for my $k (1 .. $n) {
        for my $after (@positions) {
            my $at = $after ? "$k:after" : $k;
            my ($ks, $kq) = sign_once(fault_shim_env(KLMS_KILL_MATCH => $match, KLMS_KILL_AT => $at)->%*);
            $kills++ if $ks->{killed} || $ks->{status} == 137;
            $failed++ if $ks->{hung};
            $highest = $kq if defined $kq && $kq > $highest;
            $failed++ unless sign_on("$what, killed at step $at ($steps[$k - 1])");
        }
    }
    is($failed, 0, "$what: killed at each of its $n steps (" . (@positions == 2 ? 'before and after' : 'before') .
        "), the key signs on beyond every index");
}
ledger_ok($ledger, 'every crash point of the witness');
note("kills=$kills resyncs=$resyncs");

# Every byte of the witness record flipped, in both blocks: refused, nothing signed.
{
    my $good = slurp($state);
    my $signed = 0;
    for my $offset (280 .. 359) {
        my $bad = $good;
        for my $block (0, 1) {
            my $at = 4096 * $block + $offset;
            substr($bad, $at, 1) = chr(ord(substr($bad, $at, 1)) ^ 0x01);
        }
        spew($state, $bad);
        chmod 0600, $state;
        my ($s, $q) = sign_once();
        $signed++ if $s->{status} == 0;
    }
    spew($state, $good);
    chmod 0600, $state;
    is($signed, 0, 'each of the witness record\'s 80 bytes flipped in both blocks: nothing signed');
    ok(sign_on('after the record was put back'), 'the intact file signs on');
}
ledger_ok($ledger, 'the witness record damaged');
$tpm->stop;
done_testing();
