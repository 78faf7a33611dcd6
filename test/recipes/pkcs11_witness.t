# A token with a TPM witness (docs/pkcs11.md "Configuration", docs/state.md "The witness"): its
# keys' state files are bound to a counter of a real software TPM (swtpm), so that a state file
# rolled back in place (the old contents written over the same file, which no file check can see)
# is refused with CKR_FUNCTION_FAILED and the reason in the module's log, and `klms-state resync`
# moves it past every index that may have been used. The ledger judges every signature.
# About 5 s. Skipped when swtpm or tpm2-tools is missing.
use strict;
use warnings;
use Test::More;
use KlmsTest qw(:DEFAULT :cli);
use ReuseTest;
use SwTpm;
use File::Copy qw(copy);

my $module = $ENV{KLMS_PKCS11} // plan skip_all => 'libklms-pkcs11.so not built (no $KLMS_PKCS11)';
my $python = '/usr/bin/python3';
plan skip_all => 'no python3-pykcs11 (scripts/install-deps.sh installs it)'
    unless system($python, '-c', 'import PyKCS11') == 0;
plan skip_all => 'no swtpm or tpm2-tools (scripts/install-deps.sh installs them)' unless SwTpm::available();

my $dir = private_dir();
my $tpm = SwTpm->start($dir);
END { $tpm->stop if $tpm }
my $out = "$dir/out";
mkdir $out or die;
my $log = "$dir/module.log";
my %env = (KLMS_PKCS11_MODULE => $module, KLMS_PKCS11_TOKEN_DIR => "$dir/token", KLMS_PKCS11_LOG => $log,
           KLMS_PKCS11_PIN_COST => 10, KLMS_PKCS11_CONF => undef, KLMS_PKCS11_WITNESS => 'tpm',
           KLMS_PKCS11_TPM_TCTI => $tpm->tcti);
my $driver = "$ENV{KLMS_SOURCE_DIR}/test/pkcs11/p11_driver.py";
sub driver { return run_limited(120, [$python, $driver, @_], env => \%env) }

cmd_ok(driver('init', 'so-secret-1', '1234', 'witnessed'), 'a token whose keys take a TPM witness');
my $r = driver('keygen', '1234', 'k', '5/3', $out);
cmd_ok($r, 'a key');
my %key = $r->{out} =~ /^(\w+) (.*)$/mg;
my $state = $key{state_file};
my $show = run_cmd_st([tool('klms-state'), 'show', $state], env => $tpm->env);
like($show->{out}, qr/^witness:\s+tpm/m, 'its state file is bound to the TPM');
cmd_ok(openssl('pkey', '-pubin', '-inform', 'DER', '-in', "$out/k.spki.der", '-out', "$out/k.pub.pem"), 'its public key');

cmd_ok(driver('sign', '1234', 'k', 2, $out, 'a'), 'two signatures');
copy($state, "$dir/state.backup") or die;
cmd_ok(driver('sign', '1234', 'k', 2, $out, 'b'), 'two more');
# The rollback: the old contents written over the same file (same inode, same handle).
open my $in, '<:raw', "$dir/state.backup" or die;
open my $fh, '+<:raw', $state or die;
local $/;
print $fh scalar <$in>;
close $fh or die;
$r = driver('expect', '1234', 'k', 'CKR_FUNCTION_FAILED');
cmd_ok($r, 'the rolled-back state file: CKR_FUNCTION_FAILED');
like(slurp($log), qr/C_Sign refused.*(behind|witness)/, '... the log says it is behind its witness');
cmd_ok(run_cmd_st([tool('klms-state'), 'resync', '--tcti', $tpm->tcti, $state]), 'klms-state resync');
cmd_ok(driver('sign', '1234', 'k', 2, $out, 'c'), 'signing goes on past every index used');

my $ledger = reuse_ledger("$out/k.pub.pem");
my $bad = 0;
for my $sig (glob("$out/*.sig")) {
    (my $msg = $sig) =~ s/\.sig$/.msg/;
    $bad++ unless $ledger->add(sig => slurp($sig), msg => slurp($msg), label => $sig)->{ok};
}
is($bad, 0, 'openssl verifies all 6 signatures');
ledger_ok($ledger, 'a rollback under a TPM witness');
done_testing();
