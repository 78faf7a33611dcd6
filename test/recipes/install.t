# `cmake --install` of this build tree into a temporary prefix: everything lands under
# the prefix (install_manifest.txt), the configuration files name this prefix's paths, and the
# installed provider loads through them with OPENSSL_MODULES unset — for one program
# (OPENSSL_CONF=<prefix>/share/klms/klms.cnf) and through a system file with the README's
# `.include` line, which the README's sed command removes again byte for byte.
use strict;
use warnings;
use Test::More;
use KlmsTest qw(:DEFAULT :cli);

my $cmake = $ENV{KLMS_CMAKE} or plan skip_all => 'KLMS_CMAKE not set';
my $build = $ENV{KLMS_BUILD_DIR} or die 'KLMS_BUILD_DIR not set';
my ($modulesdir) = slurp("$build/CMakeCache.txt") =~ /^KLMS_INSTALL_MODULESDIR:\w+=(.*)$/m;
plan skip_all => "KLMS_INSTALL_MODULESDIR is absolute ($modulesdir): installing would write outside the prefix"
    if $modulesdir =~ m{^/};
my ($manpages) = slurp("$build/CMakeCache.txt") =~ /^KLMS_BUILD_MANPAGES:\w+=(.*)$/m;

my $dir = private_dir();
my $prefix = "$dir/prefix";
my %plain = (env => { DESTDIR => undef, OPENSSL_CONF => undef, OPENSSL_MODULES => undef });
my $r = run_cmd([$cmake, '--install', $build, '--prefix', $prefix], %plain);
cmd_ok($r, "cmake --install --prefix");
my @manifest = split /\n/, slurp("$build/install_manifest.txt");
ok(@manifest > 5, scalar(@manifest) . ' files installed');
is_deeply([ grep { index($_, "$prefix/") != 0 } @manifest ], [], 'every installed file is under the prefix');

my ($libdir) = slurp("$build/CMakeCache.txt") =~ /^CMAKE_INSTALL_LIBDIR:\w+=(.*)$/m;
$libdir //= 'lib';
my @expected = ("bin/klms-state", "bin/klms-cms-sign", "bin/klms-raw", "$modulesdir/klms.so", 'share/klms/klms.cnf',
                'share/klms/klms-provider.cnf', 'share/doc/klms/README.md',
                'share/doc/klms/examples/klms_sign.c', 'share/doc/klms/examples/firmware/firmware-ca.cnf', 'share/doc/klms/docs/firmware.md',
                'share/doc/klms/docs/study/report.md',
                'share/doc/klms/docs/state.md', 'share/doc/klms/docs/developer-kit.md',
                'include/klms/klms.h', "$libdir/pkgconfig/klms.pc", "$libdir/pkcs11/libklms-pkcs11.so",
                'share/p11-kit/modules/klms-pkcs11.module', 'share/doc/klms/docs/pkcs11.md');
push @expected, qw(share/man/man7/klms.7 share/man/man1/klms-state.1 share/man/man1/klms-cms-sign.1 share/man/man1/klms-raw.1 share/man/man7/klms-pkcs11.7)
    if ($manpages // 'ON') =~ /^(ON|1|TRUE|YES)$/i;
ok(-f "$prefix/$_", "installed: $_") for @expected;
for my $page (grep { m{/man/} } @expected) {
    like(slurp("$prefix/$page"), qr/^\.TH "[\w-]+" "[17]"/m, "$page is roff (.TH)");
}

# The documentation for users only (cmake/install.cmake): not the maintainers' index or the review files.
ok(!-e "$prefix/share/doc/klms/docs/clang-tidy-findings.txt", 'not installed: the review file docs/clang-tidy-findings.txt');
ok(!-e "$prefix/share/doc/klms/docs/README.md", "not installed: docs/README.md, the maintainers' index");
my %listed = map { $_ => 1 } (slurp("$ENV{KLMS_SOURCE_DIR}/cmake/install.cmake") =~ /^set\(KLMS_USER_DOCS ([^)]*)\)/m)[0] =~ /(\S+)/g;
my @pages = map { m{/docs/([^/]+)$} ? $1 : () } grep { m{/share/doc/klms/docs/[^/]+$} } @manifest;
is_deeply([ grep { !$listed{$_} } @pages ], [], 'every page in <docdir>/docs is in KLMS_USER_DOCS (' . join(' ', @pages) . ')');

# OSSL_PROVIDER-klms(7), as OpenSSL names its providers' pages: a link to klms(7).
if (($manpages // 'ON') =~ /^(ON|1|TRUE|YES)$/i) {
    my $link = "$prefix/share/man/man7/OSSL_PROVIDER-klms.7";
    is(readlink($link), 'klms.7', 'share/man/man7/OSSL_PROVIDER-klms.7 -> klms.7');
    like(slurp($link), qr/^klms, OSSL_PROVIDER-klms \\?- /m, '... and klms(7) names both in NAME');
}

# The developer's kit: klms.pc names this prefix's header and module directory; the C example
# builds against the installed <klms/klms.h> with `pkg-config --cflags --libs klms` and runs.
my %pc = (env => { %{ $plain{env} }, PKG_CONFIG_PATH => "$prefix/$libdir/pkgconfig" });
$r = run_cmd(['pkg-config', '--variable=modulesdir', 'klms'], %pc);
is($r->{out}, "$prefix/$modulesdir\n", 'pkg-config --variable=modulesdir klms: the installed module\'s directory');
ok(-f "$prefix/$modulesdir/klms.so", '... which holds klms.so');
$r = run_cmd(['pkg-config', '--cflags', '--libs', 'klms'], %pc);
like($r->{out}, qr/^-I\Q$prefix\E\/include .*-lcrypto\s*$/, 'pkg-config --cflags --libs klms: the include directory and -lcrypto');
SKIP: {
    my ($cc) = slurp("$build/CMakeCache.txt") =~ /^CMAKE_C_COMPILER:\w+=(.*)$/m;
    skip 'no C compiler', 2 unless $cc && -x $cc;
    my @flags = split ' ', $r->{out};
    $r = run_cmd([$cc, '-Wall', '-Werror', '-o', "$dir/klms_sign", "$prefix/share/doc/klms/examples/klms_sign.c", @flags], %plain);
    cmd_ok($r, 'the installed example builds with the installed header alone');
    mkdir "$dir/st", 0700;
    spew("$dir/fw.bin", 'firmware');
    cmd_ok(run_cmd(["$dir/klms_sign", "$dir/st/a.state", "$dir/fw.bin"],
                   env => { OPENSSL_CONF => "$prefix/share/klms/klms.cnf", OPENSSL_MODULES => undef }),
           '... and runs with the installed provider', qr/1023 signatures left/);
}

my $snippet = "$prefix/share/klms/klms-provider.cnf";
like(slurp($snippet), qr/^module = \Q$prefix\/$modulesdir\/klms.so\E$/m, 'the snippet names the installed module');
like(slurp("$prefix/share/klms/klms.cnf"), qr/^\.include \Q$snippet\E$/m, 'klms.cnf includes the snippet');

# LSH-256-256("abc"), test/data/SOURCES.md.
my $abc = '5fbf365daea5446a7053c52b57404d77a07a5f48a1f7c1963a0898ba1b714741';
spew("$dir/abc", 'abc');
sub lsh { my ($conf) = @_; return openssl('dgst', '-LSH-256', "$dir/abc", { env => { OPENSSL_CONF => $conf, OPENSSL_MODULES => undef } }) }
cmd_ok(lsh("$prefix/share/klms/klms.cnf"), 'OPENSSL_CONF=<prefix>/share/klms/klms.cnf: LSH-256 from the installed module',
       qr/= $abc$/m);
$r = openssl('list', '-providers', { env => { OPENSSL_CONF => "$prefix/share/klms/klms.cnf", OPENSSL_MODULES => undef } });
is_deeply([ $r->{out} =~ /^  (\S+)\n/mg ], [qw(default klms)], '... default and klms, each once');
$r = run_cmd(["$prefix/bin/klms-state", '--help'], %plain);
like($r->{err}, qr/usage: klms-state show/, 'the installed klms-state runs');

# System-wide: the README's commands on a copy of the system file.
my $sys = "$dir/openssl.cnf";
my $original = -f '/etc/ssl/openssl.cnf' ? slurp('/etc/ssl/openssl.cnf') : "openssl_conf = openssl_init\n";
spew($sys, $original);
cmd_fails(lsh($sys), qr/LSH-256/i, 'the system file alone: no LSH-256');
$r = run_cmd(['sh', '-c', "echo .include $snippet >> $sys"], %plain);
cmd_ok(lsh($sys), 'with the .include line: LSH-256 from the installed module', qr/= $abc$/m);
$r = run_cmd(['sed', '-i', "\\|^\\.include \Q$snippet\E\$|d", $sys], %plain);
is(slurp($sys), $original, 'the sed command restores the system file byte for byte');
cmd_fails(lsh($sys), qr/LSH-256/i, 'disabled again: no LSH-256');

# Removed while still enabled: the .include of a missing file is ignored.
run_cmd(['sh', '-c', "echo .include $snippet >> $sys"], %plain);
unlink $snippet or die;
cmd_ok(openssl('dgst', '-sha256', "$dir/abc", { env => { OPENSSL_CONF => $sys, OPENSSL_MODULES => undef } }),
       'snippet gone, line still there: openssl works', qr/^SHA2-256/m);

done_testing();
