# What loading klms.so makes every process pay for, held where it was measured (docs/install.md
# "Load cost and self-tests"): the module needs no library but libcrypto and libc (libm, loaded for
# one rounding, or libstdc++, were each a measurable part of a dlopen), and runs no static
# initializer beyond the C++ runtime's own few: libstdc++'s iostream and locale machinery, pulled
# in by one <fstream>, added five initializers and ~2,400 relocations and doubled the dlopen.
# Times are not asserted here (a shared machine is too noisy): the causes are. Cost: readelf and
# nm on one file, well under a second. Not under the sanitizers (they link the shared runtime).
use strict;
use warnings;
use Test::More;
use KlmsTest;

plan skip_all => 'sanitizer build: the module links the shared C++ runtime there' if $ENV{KLMS_SANITIZER_PRELOAD};
my $so = "$ENV{KLMS_PROVIDER_DIR}/klms.so";
my $dyn = run_cmd(['readelf', '-d', '-W', $so]);
is($dyn->{status}, 0, 'readelf -d klms.so') or BAIL_OUT($dyn->{err});

my @needed = $dyn->{out} =~ /\(NEEDED\)\s+Shared library: \[([^\]]+)\]/g;
ok(scalar(grep { /^libcrypto\.so/ } @needed), 'klms.so needs libcrypto (the check reads the list)');
my @extra = grep { !/^(libcrypto\.so\.\d+|libc\.so\.6|ld-linux[-\w.]*\.so\.\d+)$/ } @needed;
is("@extra", '', 'klms.so needs nothing but libcrypto and libc (no libm, no libstdc++)');

my ($init) = $dyn->{out} =~ /\(INIT_ARRAYSZ\)\s+(\d+) \(bytes\)/;
ok(defined $init, 'klms.so has an init array (the check reads its size)');
cmp_ok($init // 0, '<=', 3 * 8, 'at most 3 static initializers (frame_dummy, eh_alloc, system_error)');

my $nm = run_cmd(['nm', '-C', $so]);
SKIP: {
    skip 'klms.so has no symbol table (stripped)', 1 if $nm->{status} != 0 || $nm->{out} !~ /\S/;
    my @io = sort { $a cmp $b } grep { /basic_filebuf|basic_ostringstream|locale_inst|ios_base::Init/ }
             split /\n/, $nm->{out};
    is(scalar(@io), 0, 'no iostream or locale code linked in') or diag(join("\n", @io[0 .. ($#io < 9 ? $#io : 9)]));
}
done_testing();
