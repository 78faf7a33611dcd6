# docs/firmware.md as a newcomer follows it: every ```sh block of the page runs, in order, with bash
# in one fresh directory, with `openssl` (the OpenSSL under test), `klms-cms-sign` and `klms-state`
# (the built ones) first in PATH and the installed examples directory read from the source tree.
# Then the outputs the page promises are checked: a Caliptra-profile key (LMS_SHA256_M24_H15 /
# LMOTS_SHA256_N24_W4), a signed and verified 4 MiB image, the strict chain, the CMS signature, the
# raw sizes of "Verify elsewhere", the key id in pkey -text and klms-state show. On OpenSSL 3.0 also
# the page's stock `openssl cms -sign` failure (exit 6, its error text, the 186-byte file, one index
# spent); on 3.5+ that the same command works, as the page says.
use strict;
use warnings;
use Test::More;
use KlmsTest qw(:DEFAULT :cli);
use Time::HiRes qw(time);

my $page = "$ENV{KLMS_SOURCE_DIR}/docs/firmware.md";
my $text = slurp($page);
my @blocks = $text =~ /^```sh\n(.*?)^```$/msg;
ok(@blocks >= 8, scalar(@blocks) . " sh blocks in docs/firmware.md");

my $dir = private_dir();
my $work = "$dir/work";
mkdir $_, 0700 or die for "$dir/bin", "$dir/state", $work;
symlink($ENV{OPENSSL_BIN}, "$dir/bin/openssl") or die;
symlink(tool($_), "$dir/bin/$_") or die for qw(klms-cms-sign klms-state);
my %env = (PATH => "$dir/bin:$ENV{PATH}", KLMS_STATE_DIR => "$dir/state");

# Runs one block with bash -e in the work directory: { status, out, err, seconds }.
sub run_block {
    my ($script) = @_;
    $script =~ s{/usr/share/doc/klms/examples/}{$ENV{KLMS_SOURCE_DIR}/examples/}g;
    my $t0 = time;
    my $r = run_cmd(['bash', '-c', "set -euo pipefail\ncd '$work'\n$script"], env => \%env);
    $r->{seconds} = time - $t0;
    return $r;
}

my %out;  # first line of a block -> its stdout and stderr
my $total = 0;
for my $i (0 .. $#blocks) {
    my ($first) = $blocks[$i] =~ /^(.*)$/m;
    my $r = run_block($blocks[$i]);
    $total += $r->{seconds};
    cmd_ok($r, sprintf('block %d (%s): exit 0, %.1f s', $i + 1, $first, $r->{seconds})) or BAIL_OUT('the page stops working here');
    $out{$first} = "$r->{out}\n$r->{err}";
}
diag(sprintf('the page\'s %d blocks: %.1f s', scalar @blocks, $total));
sub output_of { my ($re) = @_; my ($k) = grep { $_ =~ $re } keys %out; return defined $k ? $out{$k} : '' }

# ---- What the page promises ----
sub f { return "$work/$_[0]" }
sub field { my ($t, $name) = @_; return $t =~ /^\Q$name\E:\s+(.*)$/m ? $1 : undef }
my $key_text = openssl('pkey', '-in', f('signer.key'), '-text', '-noout')->{out};
like($key_text, qr/^level 1: LMS_SHA256_M24_H15 \/ LMOTS_SHA256_N24_W4$/m, 'the signer key is the Caliptra profile');
is(field($key_text, 'maximum signatures'), 32768, '... 2^15 signatures');
is(-s f('firmware.bin'), 4 * 1024 * 1024, 'a 4 MiB image');
like(output_of(qr/^openssl pkeyutl -sign/), qr/Signature Verified Successfully/, 'pkeyutl -verify -certin: Signature Verified Successfully');
is(-s f('firmware.sig'), 1624, 'the HSS signature is 1 624 bytes, as the table says');
like(output_of(qr/^openssl verify -x509_strict/), qr/^signer\.crt: OK$/m, 'verify -x509_strict -purpose any: signer.crt: OK');
like(output_of(qr/^openssl verify -x509_strict/), qr/X509v3 Extended Key Usage: ?\n\s+Code Signing/, '... and the EKU: Code Signing');
like(output_of(qr/^klms-cms-sign/), qr/CMS Verification successful/, 'klms-cms-sign, then cms -verify -x509_strict: CMS Verification successful');
is(-s f('signer.pub.raw'), 52, 'the raw HSS public key: 52 bytes');
is(-s f('signer.lms.pub.raw'), 48, 'the bare LMS public key: 48 bytes');
is(-s f('firmware.lms.sig'), 1620, 'the bare LMS signature: 1 620 bytes');
is(substr(slurp(f('firmware.sig')), 0, 4), "\0\0\0\0", 'what was stripped is Nspk = 0');
is(substr(slurp(f('signer.pub.raw')), 0, 4), "\0\0\0\1", '... and L = 1');
is(substr(slurp(f('signer.pub.raw')), 4, 8), "\0\0\0\x0c\0\0\0\x07", 'the LMS public key starts with LMS_SHA256_M24_H15 (0x0C), LMOTS_SHA256_N24_W4 (0x07)');
{
    my $ids = output_of(qr/^openssl pkey -in signer\.key -text/);
    my @ids = $ids =~ /^key id:\s+([0-9a-f]{64})$/mg;
    is(scalar @ids, 3, 'three key ids printed (pkey -text, klms-state show, pkey -pubin -text)');
    is_deeply([ sort keys %{ { map { $_ => 1 } @ids } } ], [ $ids[0] ], '... all the same');
    # Signing used: CSR 1, image 1, CMS 1.
    like($ids, qr/^next index:\s+3$/m, 'the signer used three indices (its CSR, the image, the CMS signature)');
}

# ---- The stock cms -sign of the page ----
{
    my ($cmd) = $text =~ /^```text\n(openssl cms -sign [^\n]*)\n```$/m;
    ok(defined $cmd, 'the page shows the stock cms -sign command') or $cmd = 'false';
    my $before = field(openssl('pkey', '-in', f('signer.key'), '-text', '-noout')->{out}, 'next index');
    my $r = run_block($cmd);
    my $after = field(openssl('pkey', '-in', f('signer.key'), '-text', '-noout')->{out}, 'next index');
    if (openssl_at_least(3, 5)) {
        cmd_ok($r, 'OpenSSL 3.5+: the stock cms -sign works');
        my $v = openssl('cms', '-verify', '-binary', '-in', f('firmware.p7s'), '-CAfile', f('root.crt'),
                        '-certfile', f('intermediate.crt'), '-purpose', 'any', '-out', "$dir/content.out");
        cmd_ok($v, '... and cms -verify accepts what it wrote');
        is(slurp("$dir/content.out"), slurp(f('firmware.bin')), '... with the image as its content');
    } else {
        # docs/firmware.md "CMS": exit 6, the error text quoted there, a file that is not a SignedData.
        is($r->{status}, 6, 'OpenSSL 3.0: the stock cms -sign exits 6');
        my ($quoted) = $text =~ /exits with status 6, prints\n\n```text\n(.*?)```/s;
        for my $line (split /\n/, $quoted // '') {
            my ($msg) = $line =~ /^(?:\.\.\.:)?(.*?)(?::\.\.\/crypto.*)?$/;
            like($r->{err}, qr/\Q$msg\E/, "... prints '$msg', as the page quotes");
        }
        is(-s f('firmware.p7s'), 186, '... and leaves the 186-byte file the page describes');
        cmd_fails(openssl('cms', '-verify', '-in', f('firmware.p7s'), '-CAfile', f('root.crt'), '-out', '/dev/null'),
                  qr/Error reading SMIME Content Info/, '... which is no SignedData');
        is($after, $before + 1, '... and it spent one index, as the page warns');
    }
}

done_testing();
