# The Debian archive for the private apt sources of scripts/openssl-build.sh and
# bench/baseline/botan-baseline.sh comes from the system's own apt configuration
# (scripts/lib/debian-archive.sh), never from a host name in the tree: sample apt configurations in
# both formats, with entries that must be skipped (comments, the security archive, third-party
# repositories, a disabled stanza, a file apt does not read), the override KLMS_DEBIAN_MIRROR, and
# the error when there is none. Both scripts are run with --print-sources (no network, no build).
use strict;
use warnings;
use File::Temp qw(tempdir);
use File::Path qw(make_path);
use Test::More;

my $src = $ENV{KLMS_SOURCE_DIR} or die "KLMS_SOURCE_DIR is not set\n";
my $lib = "$src/scripts/lib/debian-archive.sh";
my $tmp = tempdir(CLEANUP => 1);

sub write_file {
  my ($path, $text) = @_;
  open my $fh, '>', $path or die "$path: $!\n";
  print $fh $text;
  close $fh or die "$path: $!\n";
}

# Runs a bash command line with KLMS_APT_ETC=$etc; returns (status, stdout, stderr).
sub capture {
  my ($etc, $cmd, %env) = @_;
  local $ENV{KLMS_APT_ETC} = $etc;
  local $ENV{KLMS_DEBIAN_MIRROR} = $env{KLMS_DEBIAN_MIRROR} // '';
  my $stdout = `bash -c '$cmd' 2>$tmp/stderr`;
  my $status = $? >> 8;
  open my $fh, '<', "$tmp/stderr" or die;
  my $stderr = do { local $/; <$fh> };
  return ($status, $stdout, $stderr);
}

# Both formats in one configuration.
my $both = "$tmp/both";
make_path("$both/sources.list.d");
write_file("$both/sources.list", <<'EOF');
# deb http://commented.example/debian sid main
deb [arch=amd64 signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] http://one.example/debian bookworm main contrib
deb http://security.example/debian-security bookworm-security main
deb https://thirdparty.example/apt cloud-sdk-bookworm main
EOF
write_file("$both/sources.list.d/debian.sources", <<'EOF');
Types: deb
URIs: http://disabled.example/debian
Suites: bookworm
Components: main
Enabled: no

Types: deb deb-src
# a comment inside a stanza
URIs: http://two.example/debian
 http://three.example/debian/
Suites: trixie
 trixie-updates
Components: main

Types: deb
URIs: http://security.example/debian-security
Suites: trixie-security
Components: main

Types: deb
URIs: https://nodesource.example/node_20.x
Suites: nodistro
Components: main
EOF
write_file("$both/sources.list.d/other.sources.disabled", "Types: deb\nURIs: http://unread.example/debian\nSuites: sid\nComponents: main\n");
write_file("$both/sources.list.d/extra.list", "deb-src http://four.example/debian sid main\n");

my ($st, $out, $err) = capture($both, ". $lib && klms_debian_archive_uris");
is($st, 0, 'both formats: the URIs are found');
is($out, "http://one.example/debian\nhttp://four.example/debian\nhttp://two.example/debian\nhttp://three.example/debian/\n",
   'both formats: every Debian archive entry in apt\'s order; comments, security, third-party, disabled and unread files skipped');
($st, $out) = capture($both, ". $lib && klms_debian_archive_uri");
is($out, "http://one.example/debian\n", 'the first URI is the one used');

# deb822 only (Debian 12's default layout).
my $deb822 = "$tmp/deb822";
make_path("$deb822/sources.list.d");
system('cp', "$both/sources.list.d/debian.sources", "$deb822/sources.list.d/") == 0 or die;
($st, $out) = capture($deb822, ". $lib && klms_debian_archive_uri");
is($out, "http://two.example/debian\n", 'deb822 only: the first enabled Debian stanza');

# The generated lists of both scripts (dry run: --print-sources).
($st, $out, $err) = capture($deb822, "$src/scripts/openssl-build.sh --print-sources");
is($st, 0, 'openssl-build.sh --print-sources succeeds') or diag $err;
is($out, join('', map { "deb-src [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] http://two.example/debian $_ main\n" }
                  qw(trixie sid experimental)),
   'openssl-build.sh: deb-src lines of trixie, sid and experimental on the system\'s archive');
($st, $out, $err) = capture($deb822, "$src/bench/baseline/botan-baseline.sh --print-sources");
is($st, 0, 'botan-baseline.sh --print-sources succeeds') or diag $err;
is($out, join('', map { "deb-src [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] http://two.example/debian $_ main\n" }
                  qw(trixie sid)),
   'botan-baseline.sh: deb-src lines of trixie and sid on the system\'s archive');

# The override wins.
($st, $out) = capture($deb822, "$src/scripts/openssl-build.sh --print-sources", KLMS_DEBIAN_MIRROR => 'http://mirror.example/debian/');
like($out, qr{^deb-src \S+ http://mirror\.example/debian trixie main$}m, 'KLMS_DEBIAN_MIRROR overrides the system\'s archive');
unlike($out, qr/two\.example/, 'and the system\'s archive is not used then');

# No Debian archive at all: a clear error naming the override, and nothing printed.
my $none = "$tmp/none";
make_path("$none/sources.list.d");
write_file("$none/sources.list.d/thirdparty.list", "deb https://thirdparty.example/apt cloud-sdk-bookworm main\n");
for my $script ("scripts/openssl-build.sh", "bench/baseline/botan-baseline.sh") {
  ($st, $out, $err) = capture($none, "$src/$script --print-sources");
  isnt($st, 0, "$script: no Debian archive fails");
  is($out, '', "$script: and prints no sources");
  like($err, qr/no Debian archive found.*set KLMS_DEBIAN_MIRROR/s, "$script: the error names KLMS_DEBIAN_MIRROR");
}

done_testing();
