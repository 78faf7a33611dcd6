# examples/klms_sign.c, the C example of docs/developer-kit.md, built by CTest against the tree's
# <klms/klms.h> and run: key generation, signing and verification through EVP, the remaining
# signatures, and its clean failures.
use strict;
use warnings;
use Test::More;
use KlmsTest qw(:DEFAULT :cli);

my $example = tool('klms-example-sign');
my $dir = private_dir();
mkdir "$dir/state", 0700 or die;
spew("$dir/message.bin", "firmware image\n" x 1000);

my $r = run_cmd([$example, "$dir/state/app.state", "$dir/message.bin"]);
cmd_ok($r, 'klms_sign through OPENSSL_CONF', qr/^signature of 2512 bytes verified; 1023 signatures left$/m);
ok(-f "$dir/state/app.state", 'the state file exists');
is((stat "$dir/state/app.state")[2] & 07777, 0600, 'created 0600');
$r = run_cmd([tool('klms-state'), 'show', "$dir/state/app.state"]);
like($r->{out}, qr/^next index:\s+1$/m, 'klms-state show: next index 1 (one signature taken)');

# The providers through OSSL_PROVIDER_load instead of the configuration.
$r = run_cmd([$example, "$dir/state/load.state", "$dir/message.bin"], env => { OPENSSL_CONF => '/dev/null' });
cmd_ok($r, 'klms_sign with OSSL_PROVIDER_load (OPENSSL_CONF=/dev/null)', qr/1023 signatures left/);

# Every failure is reported, with OpenSSL's reason, and exits 1 (no crash).
cmd_fails(run_cmd([$example, "$dir/state/app.state", "$dir/message.bin"]),
          qr/EVP_PKEY_generate failed.*state file already exists/s, 'existing state file: refused', status => 1);
cmd_fails(run_cmd([$example, "$dir/nodir/x.state", "$dir/message.bin"]),
          qr/state file directory does not exist/, 'missing state directory: refused', status => 1);
cmd_fails(run_cmd([$example, "$dir/state/m.state", "$dir/missing.bin"]), qr/missing\.bin/,
          'missing message file', status => 1);
cmd_fails(run_cmd([$example, "$dir/state/p.state", "$dir/message.bin"],
                  env => { OPENSSL_CONF => '/dev/null', OPENSSL_MODULES => "$dir/nowhere" }),
          qr/OSSL_PROVIDER_load\(klms\) failed/, 'no provider module: refused', status => 1);
cmd_fails(run_cmd([$example]), qr/usage/, 'no arguments: usage', status => 2);

# docs/developer-kit.md shows this file: the ```c block of its "The C example" section is the file,
# byte for byte.
my $source = slurp("$ENV{KLMS_SOURCE_DIR}/examples/klms_sign.c");
my ($section) = slurp("$ENV{KLMS_SOURCE_DIR}/docs/developer-kit.md") =~ /^## The C example\n(.*?)(?:^## |\z)/ms;
my ($block) = ($section // '') =~ /^```c\n(.*?)^```$/ms;
ok(defined $block && $block eq $source, "docs/developer-kit.md's C example is examples/klms_sign.c");
like($source, qr/^#include <klms\/klms\.h>$/m, 'the example uses the names of <klms/klms.h>');
unlike($source, qr/"(?:state-file|remaining-signatures|HSS-LMS|lms|ots)"/, '... and spells none of them itself');

# The README points at this file and shows the command that builds it: that command, as written,
# builds a program that runs.
my $readme = slurp("$ENV{KLMS_SOURCE_DIR}/README.md");
like($readme, qr{\[`examples/klms_sign\.c`\]\(examples/klms_sign\.c\)}, 'the README links examples/klms_sign.c');
my ($cc_line) = $readme =~ /^(cc -o klms_sign examples\/klms_sign\.c .*-lcrypto)$/m;
ok(defined $cc_line, "the README shows the example's build command");
SKIP: {
  skip 'no cc', 2 unless defined $cc_line && system('sh', '-c', 'command -v cc >/dev/null') == 0;
  my $built = "$dir/readme_klms_sign";
  (my $cmd = $cc_line) =~ s{-o klms_sign examples/}{-o $built $ENV{KLMS_SOURCE_DIR}/examples/};
  $cmd =~ s{-Iinclude}{-I$ENV{KLMS_SOURCE_DIR}/include};
  is(system('sh', '-c', $cmd), 0, "the README's build command compiles the example");
  cmd_fails(run_cmd([$built]), qr/usage/, "and the program it builds runs", status => 2);
}

done_testing();
