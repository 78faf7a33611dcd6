# Helpers of the reuse-search recipes (test/recipes/reuse_*.t): the independent ledger
# (test/support/Ledger.pm) wired to real `openssl pkeyutl -verify`, commands with a time limit, and
# the one summary line scripts/stress-state.sh adds up.
package ReuseTest;

use strict;
use warnings;
use Exporter 'import';
use KlmsTest;
use lib(($ENV{KLMS_SOURCE_DIR} // die "KLMS_SOURCE_DIR not set\n") . '/test/support');
use Ledger;

our @EXPORT = qw(reuse_ledger run_limited openssl_limited pubout ledger_ok reuse_summary fault_shim_env
                 hss_key xmss_key seeded_env);

my $seq = 0;
my $scratch;

# A Ledger for the key whose public key is in PEM file `pub` (test/support/XmssLedger.pm for XMSS
# and XMSS^MT keys); signatures count only if the real
# openssl verifies them (verify_mode 'all', or 'collisions' to verify only suspects).
sub reuse_ledger {
    my ($pub, %o) = @_;
    $scratch //= private_dir();
    my $verify = sub {
        my ($sig, $msg) = @_;
        my $n = ++$seq;
        spew("$scratch/v$n.sig", $sig);
        spew("$scratch/v$n.msg", $msg);
        my $r = openssl_limited(60, 'pkeyutl', '-verify', '-rawin', '-pubin', '-inkey', $pub, '-in', "$scratch/v$n.msg",
                                '-sigfile', "$scratch/v$n.sig");
        unlink "$scratch/v$n.sig", "$scratch/v$n.msg";
        return $r->{status} == 0 && $r->{out} =~ /Signature Verified Successfully/;
    };
    return Ledger::for_public_key(slurp($pub), verify => $verify,
                       verify_mode => $o{verify_mode} // 'all');
}

# run_cmd_st under `timeout`: a command that does not finish in `secs` seconds gets SIGTERM, then
# SIGKILL 5 s later, and the result has hung => 1 (timeout's status 124).
sub run_limited {
    my ($secs, $argv, %opts) = @_;
    my $r = run_cmd_st(['timeout', '-k', '5', $secs, @$argv], %opts);
    $r->{hung} = $r->{status} == 124 ? 1 : 0;
    $r->{killed} = $r->{status} == 137 ? 1 : 0;
    return $r;
}
sub openssl_limited {
    my $secs = shift;
    my $opts = ref $_[-1] eq 'HASH' ? pop : {};
    return run_limited($secs, [$ENV{OPENSSL_BIN} // 'openssl', @_], %$opts);
}

# The public key of a private key file, as PEM next to it.
sub pubout {
    my ($key, %o) = @_;
    my $pub = $o{out} // "$key.pub.pem";
    my $r = openssl_limited(60, 'pkey', '-in', $key, '-pubout', '-out', $pub, { env => $o{env} // {} });
    die "pkey -pubout $key: $r->{err}" if $r->{status} != 0;
    return $pub;
}

# genpkey of an HSS key: hss_key($key, $state, 'LMS_SHA256_M32_H5', 'LMOTS_SHA256_N32_W4', [more pkeyopts])
sub hss_key {
    my ($key, $state, $lms, $ots, @more) = @_;
    my $opts = @more && ref $more[-1] eq 'HASH' ? pop @more : {};
    return openssl_limited(600, 'genpkey', '-algorithm', 'HSS-LMS', '-pkeyopt', "lms:$lms", '-pkeyopt', "ots:$ots",
                           '-pkeyopt', "state-file:$state", (map { ('-pkeyopt', $_) } @more), '-out', $key, $opts);
}

# genpkey of an XMSS or XMSS^MT key (docs/xmss.md): xmss_key($key, $state, 'XMSSMT-SHA2_20/2_256', [more pkeyopts])
sub xmss_key {
    my ($key, $state, $set, @more) = @_;
    my $opts = @more && ref $more[-1] eq 'HASH' ? pop @more : {};
    return openssl_limited(600, 'genpkey', '-algorithm', $set =~ /^XMSSMT-/i ? 'XMSSMT' : 'XMSS', '-pkeyopt', "params:$set",
                           '-pkeyopt', "state-file:$state", (map { ('-pkeyopt', $_) } @more), '-out', $key, $opts);
}

sub seeded_env { return { KLMS_ALLOW_SEEDED_KEYS => '1' } }

# Environment preloading the fault shim (after the sanitizer runtime when there is one).
sub fault_shim_env {
    my (%vars) = @_;
    my $preload = join ':', grep { defined && length } $ENV{KLMS_SANITIZER_PRELOAD}, tool('klms_fault_shim');
    return { LD_PRELOAD => $preload, %vars };
}

# ledger_ok($ledger, $name): no reuse in the ledger, and every reuse listed when there is one.
sub ledger_ok {
    my ($ledger, $name) = @_;
    require Test::More;
    local $Test::Builder::Level = $Test::Builder::Level + 1;
    my @r = $ledger->reuses;
    my $ok = Test::More::ok(!@r, "$name: no one-time key signed twice (" . $ledger->summary_line . ')');
    Test::More::diag("REUSE: $_") for @r;
    return $ok;
}

# The one line per recipe that scripts/stress-state.sh sums up.
sub reuse_summary {
    my (%c) = @_;
    require Test::More;
    Test::More::note(sprintf('reuse-summary: crash_points=%d kills=%d signers=%d signatures=%d pairs=%d reuses=%d',
                             map { $c{$_} // 0 } qw(crash_points kills signers signatures pairs reuses)));
}

1;
