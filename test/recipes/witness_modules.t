# Where the witness modules are found (docs/install.md "Witness modules", state/witness_module.h),
# with a real swtpm and the real openssl, KLMS_WITNESS_DIR unset unless a case sets it:
#   - a source build finds its own modules: genpkey witness:tpm, signing and klms-state show work
#     from the build tree with no variable set (as docs/backup.md's commands run after the demo);
#   - a module that cannot be loaded refuses genpkey and signing with the loader's words (the path
#     tried and dlerror()), never "unreachable", and writes no state file; klms-state show says so;
#   - the witness_dir configuration key, and KLMS_WITNESS_DIR over it;
#   - a copy of klms.so outside the build tree uses modules beside it, and never the build tree's.
# Cost: one swtpm, H5 keys, about 25 openssl runs: a few seconds.
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
my $built = "$ENV{KLMS_BUILD_DIR}/witness/klms-witness-tpm.so";
plan skip_all => 'klms-witness-tpm.so not built (tpm2-tss missing)' unless -e $built;

my $dir = private_dir();
my $tpm = SwTpm->start($dir);
my $state_tool = tool('klms-state');
my $n = 0;
# Every command without KLMS_WITNESS_DIR (CTest sets it for the other recipes).
my %env = (%{ $tpm->env }, KLMS_WITNESS_DIR => undef);

sub keydir { my $d = "$dir/k" . ++$n; mkdir $d, 0700 or die "$d: $!"; return $d }
sub genkey {
    my ($d, %e) = @_;
    return hss_key("$d/k.pem", "$d/k.state", 'LMS_SHA256_M32_H5', 'LMOTS_SHA256_N32_W8', 'witness:tpm',
                   { env => { %env, %e } });
}
sub sign {
    my ($d, %e) = @_;
    spew("$d/m", "firmware " . ++$n . "\n");
    unlink "$d/m.sig";
    return state_sign(key => "$d/k.pem", in => "$d/m", out => "$d/m.sig", env => { %env, %e });
}
sub show { my ($d, %e) = @_; return run_limited(60, [$state_tool, 'show', "$d/k.state"], env => { %env, %e }) }

sub refused_by_loader {
    my ($r, $path_re, $why_re, $name) = @_;
    isnt($r->{status}, 0, "$name: refused");
    like($r->{err}, qr/witness module cannot be loaded/, "$name: by the reason 'witness module cannot be loaded'");
    like($r->{err}, $path_re, "$name: names the path tried");
    like($r->{err}, $why_re, "$name: with dlerror()'s words");
    unlike($r->{err}, qr/unreachable/, "$name: never 'unreachable'");
}

# ---- a source build: no variable ----
my $good = keydir();
{
    my $r = genkey($good);
    is($r->{status}, 0, 'genpkey witness:tpm from the build tree with KLMS_WITNESS_DIR unset') or diag($r->{err});
    my $s = sign($good);
    is($s->{status}, 0, 'signing with it, KLMS_WITNESS_DIR unset') or diag($s->{err});
    ok(state_verifies("$good/k.pem", "$good/m", "$good/m.sig"), 'the signature verifies');
    my $show = show($good);
    is($show->{status}, 0, 'klms-state show from the build tree, KLMS_WITNESS_DIR unset') or diag($show->{err});
    like($show->{out}, qr/witness state:\s+agrees/, 'klms-state found the module and read the counter');
}

# ---- a module that is not there, or not a module ----
my $empty = "$dir/empty";
mkdir $empty, 0700;
my $broken = "$dir/broken";
mkdir $broken, 0700;
spew("$broken/klms-witness-tpm.so", "not an ELF file\n");
{
    my $d = keydir();
    my $r = genkey($d, KLMS_WITNESS_DIR => $empty);
    refused_by_loader($r, qr{\Q$empty\E/klms-witness-tpm\.so}, qr/No such file or directory/, 'genpkey, no module');
    like($r->{err}, qr/KLMS_WITNESS_DIR names its directory/, 'genpkey, no module: says who named the directory');
    ok(!-e "$d/k.state", 'genpkey, no module: no state file made');
    my $b = genkey(keydir(), KLMS_WITNESS_DIR => $broken);
    refused_by_loader($b, qr{\Q$broken\E/klms-witness-tpm\.so}, qr/invalid ELF header|file too short/,
                      'genpkey, not a shared object');

    my $before = slurp("$good/k.state");
    my $s = sign($good, KLMS_WITNESS_DIR => $empty);
    refused_by_loader($s, qr{\Q$empty\E/klms-witness-tpm\.so}, qr/No such file or directory/, 'signing, no module');
    is(slurp("$good/k.state"), $before, 'signing, no module: the state file is unchanged');
    my $sb = sign($good, KLMS_WITNESS_DIR => $broken);
    refused_by_loader($sb, qr{\Q$broken\E/klms-witness-tpm\.so}, qr/invalid ELF header|file too short/,
                      'signing, not a shared object');

    my $show = show($good, KLMS_WITNESS_DIR => $empty);
    like($show->{out}, qr/witness state:\s+no module.*\Q$empty\E\/klms-witness-tpm\.so/,
         'klms-state show: no module, and the path tried');
}

# ---- the witness_dir configuration key; KLMS_WITNESS_DIR wins over it ----
{
    my $conf = "$dir/witness_dir.cnf";
    spew($conf, ".include " . openssl_conf() . "\n[klms_sect]\nwitness_dir = $empty\n[default]\n");
    my $s = sign($good, OPENSSL_CONF => $conf);
    refused_by_loader($s, qr{\Q$empty\E/klms-witness-tpm\.so}, qr/No such file/, 'witness_dir naming an empty directory');
    like($s->{err}, qr/witness_dir names its directory/, 'witness_dir: says who named the directory');
    my $w = sign($good, OPENSSL_CONF => $conf, KLMS_WITNESS_DIR => "$ENV{KLMS_BUILD_DIR}/witness");
    is($w->{status}, 0, 'KLMS_WITNESS_DIR wins over witness_dir') or diag($w->{err});
}

# ---- a copy of klms.so elsewhere: modules beside it, never the build tree's ----
{
    my $mods = "$dir/modules";
    mkdir $mods, 0700;
    copy("$ENV{KLMS_PROVIDER_DIR}/klms.so", "$mods/klms.so") or die "copy: $!";
    my $s = sign($good, OPENSSL_MODULES => $mods);
    refused_by_loader($s, qr/klms-witness-tpm\.so/, qr/No such file/, 'a copied klms.so without modules');
    like($s->{err}, qr/looked in \Q$mods\E, /, 'the copy looks beside itself first');
    unlike($s->{err}, qr/\Q$ENV{KLMS_BUILD_DIR}\E/, 'the copy never looks in the build tree');
    copy($built, "$mods/klms-witness-tpm.so") or die "copy: $!";
    my $ok = sign($good, OPENSSL_MODULES => $mods);
    is($ok->{status}, 0, 'a copied klms.so with the module beside it signs') or diag($ok->{err});
}

$tpm->stop;
done_testing();
