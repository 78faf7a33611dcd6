# conf/klms.cnf on top of the system configuration: it loads default and klms exactly
# once, also when the system file already activates providers through the same section names, and
# `req -x509` made through it gets the system file's v3_ca extensions (basicConstraints CA:TRUE).
use strict;
use warnings;
use Test::More;
use KlmsTest qw(:DEFAULT :cli);

my $dir = private_dir();
mkdir "$dir/state", 0700 or die;
$ENV{KLMS_STATE_DIR} = "$dir/state";
my $system_cnf = '/etc/ssl/openssl.cnf';
plan skip_all => "no $system_cnf on this machine" unless -f $system_cnf;
my $conf_text = slurp(openssl_conf());
like($conf_text, qr/^\.include \Q$system_cnf\E$/m, 'conf/klms.cnf includes the system configuration');

# Provider names in `openssl list -providers`, in order.
sub providers {
    my (%env) = @_;
    my $r = openssl('list', '-providers', { env => \%env });
    return [ $r->{out} =~ /^  (\S+)\n/mg ];
}
is_deeply(providers(), [qw(default klms)], 'conf/klms.cnf: default and klms, each once');

# A system file that already loads the default provider through the sections Debian's template
# names: the keys merge, nothing is loaded twice.
my $sys = "$dir/system.cnf";
spew($sys, slurp($system_cnf) . "\n[openssl_init]\nproviders = provider_sect\n[provider_sect]\n"
         . "default = default_sect\n[default_sect]\nactivate = 1\n");
(my $over = $conf_text) =~ s/^\.include .*$/.include $sys/m or die;
spew("$dir/over.cnf", $over);
is_deeply(providers(OPENSSL_CONF => "$dir/over.cnf"), [qw(default klms)],
          'system file activating default itself: still default and klms, each once');
# Included twice (system file that includes the snippet, and a program configuration again).
spew("$dir/twice.cnf", ".include " . openssl_conf() . "\n.include " . openssl_conf() . "\n");
is_deeply(providers(OPENSSL_CONF => "$dir/twice.cnf"), [qw(default klms)], 'included twice: each once');
# One digest option per dgst: 4.0 refuses two ("Multiple digest or unknown options"), 3.x used the last.
my $r = openssl('dgst', '-sha256', openssl_conf(), { env => { OPENSSL_CONF => "$dir/twice.cnf" } });
cmd_ok($r, 'the default provider\'s digest works', qr/^SHA2-256\(/m);
$r = openssl('dgst', '-LSH-256', openssl_conf(), { env => { OPENSSL_CONF => "$dir/twice.cnf" } });
cmd_ok($r, 'and klms\'s', qr/^LSH-256-256\(/m);

# A root certificate through conf/klms.cnf: X.509 v3 with basicConstraints CA:TRUE.
$r = openssl('genpkey', '-algorithm', 'HSS-LMS', '-pkeyopt', 'hash:LSH256', '-pkeyopt', 'height:5',
             '-out', "$dir/root-key.pem");
cmd_ok($r, 'genpkey a K-LMS root key');
$r = openssl('req', '-new', '-x509', '-key', "$dir/root-key.pem", '-subj', '/CN=Root', '-days', '30',
             '-out', "$dir/root.crt");
cmd_ok($r, 'req -new -x509 through conf/klms.cnf');
$r = openssl('x509', '-in', "$dir/root.crt", '-noout', '-text');
like($r->{out}, qr/^\s*Version: 3 \(0x2\)$/m, 'the root is an X.509 v3 certificate');
like($r->{out}, qr/X509v3 Basic Constraints: critical\s*\n\s*CA:TRUE/, 'with basicConstraints critical, CA:TRUE');
like($r->{out}, qr/X509v3 Subject Key Identifier/, 'and a subject key identifier (v3_ca)');
$r = openssl('verify', '-CAfile', "$dir/root.crt", "$dir/root.crt");
cmd_ok($r, 'verify -CAfile root.crt root.crt', qr/OK/);

# The same without the system configuration (what conf/klms.cnf did before): OpenSSL 3.0 and 3.1
# make a v1 certificate without extensions; 3.2 and later add basicConstraints CA:TRUE and key
# identifiers by default, so there the difference disappears.
(my $bare = $conf_text) =~ s/^\.include .*$//m;
spew("$dir/bare.cnf", $bare);
openssl('req', '-new', '-x509', '-key', "$dir/root-key.pem", '-subj', '/CN=Bare', '-days', '30',
        '-out', "$dir/bare.crt", { env => { OPENSSL_CONF => "$dir/bare.cnf" } });
$r = openssl('x509', '-in', "$dir/bare.crt", '-noout', '-text');
my ($major, $minor) = openssl('version')->{out} =~ /^OpenSSL (\d+)\.(\d+)/;
if ($major == 3 && $minor < 2) {
    like($r->{out}, qr/^\s*Version: 1 \(0x0\)$/m, "OpenSSL $major.$minor without the system file: v1");
    unlike($r->{out}, qr/CA:TRUE/, '... without CA:TRUE');
} else {
    like($r->{out}, qr/^\s*Version: 3 \(0x2\)$/m, "OpenSSL $major.$minor without the system file: v3 anyway");
}

done_testing();
