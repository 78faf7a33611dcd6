# The reuse search on the PKCS#11 module (docs/development.md "The reuse search"): one key signed
# through PyKCS11 by two processes at once, by a forked child (whose inherited session must refuse
# until it calls C_Initialize), and by processes SIGKILLed inside C_Sign at every durable step of
# the state and cache files (the fault shim's crash points, test/support/fault_shim.c) and at
# random instants. The ledger (test/support/Ledger.pm) judges every signature that came out, each
# verified by the real openssl: no one-time key signs twice, and the state file's remaining count
# never claims an index a returned signature used. About 20 s.
use strict;
use warnings;
use Test::More;
use KlmsTest qw(:DEFAULT :cli);
use ReuseTest;
use Time::HiRes qw(sleep);

my $module = $ENV{KLMS_PKCS11} // plan skip_all => 'libklms-pkcs11.so not built (no $KLMS_PKCS11)';
my $python = '/usr/bin/python3';
plan skip_all => 'no python3-pykcs11 (scripts/install-deps.sh installs it)'
    unless system($python, '-c', 'import PyKCS11') == 0;

my $dir = private_dir();
my $out = "$dir/out";
mkdir $out or die;
my %env = (KLMS_PKCS11_MODULE => $module, KLMS_PKCS11_TOKEN_DIR => "$dir/token", KLMS_PKCS11_LOG => "$dir/module.log",
           KLMS_PKCS11_PIN_COST => 10, KLMS_PKCS11_CONF => undef);
my $driver = "$ENV{KLMS_SOURCE_DIR}/test/pkcs11/p11_driver.py";
my $pin = '1234';
sub driver { my ($extra, @args) = @_; return run_limited(120, [$python, $driver, @args], env => {%env, %$extra}) }
END { kill_spawned() }

cmd_ok(driver({}, 'init', 'so-secret-1', $pin, 'reuse'), 'token');
my $r = driver({}, 'keygen', $pin, 'k', '5/3,5/3', $out);
cmd_ok($r, 'a two-level key (1024 signatures)');
my %key = $r->{out} =~ /^(\w+) (.*)$/mg;
cmd_ok(openssl('pkey', '-pubin', '-inform', 'DER', '-in', "$out/k.spki.der", '-out', "$out/k.pub.pem"), 'its public key');
my $signed = 0;  # signatures returned in whole (their .sig file complete)

# Two processes signing at once.
my @pids = map { spawn_cmd([$python, $driver, 'loop', $pin, 'k', 15, $out, "two$_"], env => \%env) } 1 .. 2;
for my $pid (@pids) {
    waitpid($pid, 0);
    is($?, 0, "process $pid: 15 signatures");
}

# A fork: the child's inherited session refuses (CKR_CRYPTOKI_NOT_INITIALIZED), then after
# C_Initialize it signs beside its parent.
cmd_ok(driver({}, 'fork', $pin, 'k', 4, $out), 'fork: the child refuses until C_Initialize; both sign');

# SIGKILL inside C_Sign at each durable step on the state file and the tree caches, before and
# after the call (KLMS_KILL_AT counts the steps of the whole process: key loading, login, signing).
my $kills = 0;
for my $k (1 .. 8) {
    for my $when ('', ':after') {
        my $shim = fault_shim_env(KLMS_KILL_AT => "$k$when", KLMS_KILL_MATCH => '.state');
        my $res = driver($shim, 'loop', $pin, 'k', 2, $out, "kill$k" . ($when ? 'a' : 'b'));
        $kills++ if $res->{status} == 137;
    }
}
cmp_ok($kills, '>=', 8, "SIGKILLed inside the signing process at $kills of 16 crash points");
# SIGKILL at random instants of a signing loop.
for my $round (1 .. 3) {
    my $pid = spawn_cmd([$python, $driver, 'loop', $pin, 'k', 200, $out, "rand$round"], env => \%env);
    sleep(0.4 + rand(0.6));
    kill 'KILL', $pid;
    waitpid($pid, 0);
}
cmd_ok(driver({}, 'sign', $pin, 'k', 2, $out, 'after'), 'signing goes on after every kill');

# The ledger over every signature that came out whole.
my $ledger = reuse_ledger("$out/k.pub.pem");
my ($bad, $n) = (0, 0);
for my $sig (glob("$out/*.sig")) {
    (my $msg = $sig) =~ s/\.sig$/.msg/;
    my $add = $ledger->add(sig => slurp($sig), msg => slurp($msg), label => $sig);
    $n++;
    $bad++ unless $add->{ok};
}
is($bad, 0, "openssl verifies all $n signatures");
ledger_ok($ledger, 'two processes, a fork, SIGKILLs inside C_Sign');
my $left = driver({}, 'remaining', $pin, 'k');
my ($remaining) = $left->{out} =~ /^remaining (\d+)$/m;
my $max_q = $ledger->summary->{max_q};
cmp_ok($remaining, '<=', 1024 - 1 - $max_q, "CKA_HSS_KEYS_REMAINING ($remaining) is below every returned index (max q $max_q)");
reuse_summary(crash_points => 16, kills => $kills + 3, signers => 3 + 16 + 3, signatures => $n,
              pairs => $ledger->summary->{pairs}, reuses => scalar($ledger->reuses));
done_testing();
