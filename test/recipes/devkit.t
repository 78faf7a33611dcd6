# The developer's kit (docs/developer-kit.md): <klms/klms.h> names exactly what the loaded provider
# offers — every parameter of its own that `openssl list -verbose` shows is in the header and every
# parameter name of the header is offered (the planned witness aside) — it compiles as C on its
# own, and the provider's build info names the compiler and the OpenSSL headers it was built with.
use strict;
use warnings;
use Test::More;
use KlmsTest qw(:DEFAULT :cli);

my $src = $ENV{KLMS_SOURCE_DIR} or die 'KLMS_SOURCE_DIR not set';
my $build = $ENV{KLMS_BUILD_DIR} or die 'KLMS_BUILD_DIR not set';
my $cache = slurp("$build/CMakeCache.txt");

# The header's macros: name => string.
my %macro = slurp("$src/include/klms/klms.h") =~ /^#define (KLMS_\w+) "([^"]*)"/mg;
ok(keys %macro > 30, scalar(keys %macro) . ' names in <klms/klms.h>');

# OpenSSL's own parameter names (its openssl/core_names.h): those are not ours to list.
my ($ossl_inc) = $cache =~ /^OPENSSL_INCLUDE_DIR:\w+=(.*)$/m;
my %ossl = map { $_ => 1 } slurp("$ossl_inc/openssl/core_names.h") =~ /^#\s*define OSSL_\w+\s+"([^"]*)"/mg;
ok(exists $ossl{'pub'} && exists $ossl{'digest'}, "OpenSSL's core_names.h read from $ossl_inc");

# The parameters `openssl list -verbose` shows for klms's algorithms, by table.
sub tables {
    my ($text) = @_;
    my (%t, $current);
    for (split /\n/, $text) {
        if (/^\s+(settable key generation|retrievable operation|settable operation) parameters:$/) { $current = $1; next }
        if ($current && /^\s{6}([\w-]+): /) { $t{$current}{$1} = 1; next }
        $current = undef;
    }
    return \%t;
}
my $km = openssl('list', '-key-managers', '-verbose', '-propquery', 'provider=klms');
my $sg = openssl('list', '-signature-algorithms', '-verbose', '-propquery', 'provider=klms');
cmd_ok($km, 'openssl list -key-managers -verbose');
cmd_ok($sg, 'openssl list -signature-algorithms -verbose');
my $keymgmt = tables($km->{out});
my $signature = tables($sg->{out});
ok($keymgmt->{'settable key generation'} && $keymgmt->{'retrievable operation'}, 'key generation and key parameters listed');
ok($signature->{'settable operation'} && $signature->{'retrievable operation'}, 'signature parameters listed');

my %pkey = map { $macro{$_} => $_ } grep { /^KLMS_PKEY_PARAM_/ } keys %macro;
my %sig = map { $macro{$_} => $_ } grep { /^KLMS_SIGNATURE_PARAM_/ } keys %macro;
my @keymgmt_own = grep { !$ossl{$_} } map { keys %$_ } values %$keymgmt;
my @signature_own = grep { !$ossl{$_} } map { keys %$_ } values %$signature;
is_deeply([ sort grep { !$pkey{$_} } @keymgmt_own ], [], "every key parameter of klms's own is a KLMS_PKEY_PARAM_");
is_deeply([ sort grep { !$sig{$_} } @signature_own ], [], "every signature parameter of klms's own is a KLMS_SIGNATURE_PARAM_");
# (Some of our names are OpenSSL's too, "seed" for one: offered means listed at all.)
my %offered_key = map { %$_ } values %$keymgmt;
my %offered_sig = map { %$_ } values %$signature;
is_deeply([ sort grep { !$offered_key{$_} } keys %pkey ], [], 'every KLMS_PKEY_PARAM_ is offered');
is_deeply([ sort grep { !$offered_sig{$_} } keys %sig ], [], 'every KLMS_SIGNATURE_PARAM_ is offered');
my $wdir = private_dir();
# The witness parameter is the header's: with no TPM where the TCTI points, key generation refuses
# before any hashing, by name (docs/state.md "The witness"; the TPM itself: witness_rollback.t).
cmd_fails(openssl('genpkey', '-algorithm', 'HSS-LMS', '-pkeyopt', "$macro{KLMS_PKEY_PARAM_WITNESS}:tpm",
                  '-pkeyopt', "state-file:$wdir/w.state", '-out', "$wdir/w.pem",
                  { env => { $macro{KLMS_ENV_TPM_TCTI} => "swtpm:path=$wdir/no-such-tpm" } }),
          qr/witness unreachable/, 'the header\'s witness parameter is the provider\'s (no TPM: refused by name)');
ok(!-e "$wdir/w.state", '... and no state file was made');

# Algorithm and digest names.
my ($ids) = $km->{out} =~ /IDs: \{ ([^}]*) \} \@ klms/;
# OpenSSL 3.0-3.x: the key manager's names are exactly the header's four. OpenSSL 4.0 has the OID
# in its own object table ("LMS", id-alg-hss-lms-hashsig), and list shows that table's name of the
# OID in place of the one klms registers: our two names and the OID's names, nothing else.
my @ids = sort split /, /, $ids // '';
if (openssl_at_least(4, 0)) {
    my %allowed = map { $_ => 1 } @macro{qw(KLMS_ALG_HSS_LMS KLMS_ALG_HSS KLMS_ALG_HSS_LMS_SN KLMS_ALG_HSS_LMS_OID)}, 'LMS';
    ok(scalar(grep { $_ eq $macro{KLMS_ALG_HSS_LMS} } @ids) && scalar(grep { $_ eq $macro{KLMS_ALG_HSS} } @ids)
           && !grep({ !$allowed{$_} } @ids),
       "OpenSSL 4.0: the key manager's names are the header's KLMS_ALG_ and the OID's own (@ids)");
} else {
    is_deeply(\@ids, [ sort @macro{qw(KLMS_ALG_HSS_LMS KLMS_ALG_HSS KLMS_ALG_HSS_LMS_SN KLMS_ALG_HSS_LMS_OID)} ],
              "the key manager's names are the header's KLMS_ALG_");
}
my $md = openssl('list', '-digest-algorithms', '-propquery', 'provider=klms');
my %digest = map { $_ => 1 } $md->{out} =~ /([\w-]+)/g;
is_deeply([ grep { !$digest{$macro{$_}} } sort grep { /^KLMS_MD_/ } keys %macro ], [], 'every KLMS_MD_ is a digest of klms');
is($macro{KLMS_PROVIDER_NAME}, 'klms', 'KLMS_PROVIDER_NAME');
like(slurp("$src/conf/klms-provider.cnf.in"), qr/^# \Q$macro{$_}\E = /m, "$_ is a key of the configuration snippet")
    for qw(KLMS_CONF_STATE_DIR KLMS_CONF_RESERVE KLMS_CONF_ALLOW_NETWORK_FS);

# The header on its own, as C89-compatible C99 and as C++, warnings as errors.
SKIP: {
    my ($cc) = slurp("$build/CMakeCache.txt") =~ /^CMAKE_C_COMPILER:\w+=(.*)$/m;
    skip 'no C compiler in CMakeCache.txt', 1 unless $cc && -x $cc;
    my $d = private_dir();
    spew("$d/t.c", "#include <klms/klms.h>\n#include <string.h>\nint main(void) { return (int)strlen(KLMS_PKEY_PARAM_STATE_FILE) - 10; }\n");
    my $r = run_cmd([$cc, '-std=c99', '-Wall', '-Wextra', '-pedantic', '-Werror', "-I$src/include", '-o', "$d/t", "$d/t.c"]);
    cmd_ok($r, 'klms.h compiles alone as C99 with -Wall -Wextra -pedantic -Werror');
}

# Build info: "klms VERSION (COMPILER VERSION, built against OpenSSL HEADERS-VERSION)".
my ($version) = slurp("$src/CMakeLists.txt") =~ /^project\(klms VERSION ([\d.]+)/m;
my ($compiler_file) = glob("$build/CMakeFiles/*/CMakeCXXCompiler.cmake");
my $compiler = slurp($compiler_file);
my ($id) = $compiler =~ /^set\(CMAKE_CXX_COMPILER_ID "(\w+)"\)/m;
my ($cver) = $compiler =~ /^set\(CMAKE_CXX_COMPILER_VERSION "([\d.]+)"\)/m;
my ($hdr) = slurp("$ossl_inc/openssl/opensslv.h") =~ /^#\s*define OPENSSL_FULL_VERSION_STR "([^"]+)"/m;
my $name = { GNU => 'GCC', Clang => 'clang' }->{$id} // $id;
my $list = openssl('list', '-providers', '-verbose');
my ($klms_block) = $list->{out} =~ /^  klms\n((?:    .*\n)*)/m;
my ($info) = ($klms_block // '') =~ /^    build info: (.*)$/m;
like($info // '', qr/^klms \Q$version\E \(\Q$name $cver\E[^,]*, built against OpenSSL \Q$hdr\E\)$/,
     "list -providers -verbose: build info names $name $cver and OpenSSL $hdr");
like($klms_block // '', qr/^    version: \Q$version\E$/m, 'version');
like($klms_block // '', qr/^    status: active$/m, 'status active');

done_testing();
