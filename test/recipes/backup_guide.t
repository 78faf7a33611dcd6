# docs/backup.md as a user follows it: every ```sh block of the page runs, in order, in ONE bash
# session (a user's terminal: the first block's `export KLMS_TPM_TCTI` holds for the rest), with
# `openssl` (the OpenSSL under test) and `klms-state` (the built one) first in PATH, HOME and
# /var/lib/klms moved into a fresh private directory, and a real swtpm started by the page itself.
# Before a block, what its `<!-- before: ... -->` comment says happens to the host (a lost state
# directory, a file copied back, a new host, a TPM restart); `start_tpm` is the page's first block,
# `sign_release` one more signature. Every block writes a new image to fw.bin first, and every
# signature the session makes goes to the independent ledger (test/support/Ledger.pm): the page's
# procedures never sign an index twice. Cost: about 3-6 s (one H10 key, two swtpm starts).
use strict;
use warnings;
use Test::More;
use KlmsTest qw(:DEFAULT :cli);
use ReuseTest;
use SwTpm;

unless (SwTpm::available()) {
    BAIL_OUT('swtpm / tpm2-tools not installed (scripts/install-deps.sh installs them)') if $ENV{CI};
    plan skip_all => 'swtpm / tpm2-tools not installed: the page cannot be followed here';
}

my $page = "$ENV{KLMS_SOURCE_DIR}/docs/backup.md";
my $text = slurp($page);
my @blocks;
while ($text =~ /(?:<!-- before: (.*?) -->\n)?^```sh\n(.*?)^```$/msg) { push @blocks, { before => $1 // '', body => $2 } }
ok(@blocks >= 8, scalar(@blocks) . ' sh blocks in docs/backup.md');

my $dir = private_dir();
my ($work, $home, $var) = ("$dir/work", "$dir/home", "$dir/var-lib-klms");
mkdir $_, 0700 or die "$_: $!" for "$dir/bin", $work, $home, "$work/sigs";
symlink($ENV{OPENSSL_BIN}, "$dir/bin/openssl") or die;
symlink(tool('klms-state'), "$dir/bin/klms-state") or die;
my $where = sub { my ($s) = @_; $s =~ s{/var/lib/klms}{$var}g; return $s };

# The session: the page's blocks with what happens between them, each block's end marked.
my $first = $where->($blocks[0]{body});
my $script = <<"EOF";
set -euo pipefail
cd '$work'
n=0
new_image() { n=\$((n + 1)); printf 'firmware image %d\\n' "\$n" > fw.bin; }
archive() { if [ -e fw.sig ] && ! cmp -s fw.sig "sigs/last.sig" 2>/dev/null; then cp fw.sig "sigs/\$n.sig"; cp fw.bin "sigs/\$n.bin"; cp fw.sig sigs/last.sig; fi; }
sign_release() { new_image; openssl pkeyutl -sign -rawin -inkey k.pem -in fw.bin -out fw.sig; archive; }
start_tpm() {
  while [ -e ~/swtpm/pid ] && kill -0 "\$(cat ~/swtpm/pid)" 2>/dev/null; do sleep 0.05; done
$first
}
EOF
for my $i (0 .. $#blocks) {
    my $b = $blocks[$i];
    $script .= $where->($b->{before}) . "\n" if length $b->{before};
    $script .= "new_image\necho '### block " . ($i + 1) . "' >&2\n" . $where->($b->{body}) . "\narchive\necho '### done " . ($i + 1) . "' >&2\n";
}
my $r = run_limited(300, ['bash', '-c', $script], env => { PATH => "$dir/bin:$ENV{PATH}", HOME => $home, KLMS_TPM_TCTI => undef });
my @done = $r->{err} =~ /^### done (\d+)$/mg;
for my $i (0 .. $#blocks) {
    my ($line) = $blocks[$i]{body} =~ /^(.*)$/m;
    ok((grep { $_ == $i + 1 } @done), "block " . ($i + 1) . " ($line) runs") or diag($r->{err}), last;
}
is($r->{status}, 0, 'the whole page runs as one session') or diag($r->{err});
system('sh', '-c', "kill \$(cat '$home/swtpm/pid') 2>/dev/null");

# ---- what the page promises ----
like($r->{err}, qr/restored \S+ from k\.state\.record: next index 2\b/, 'restore on the same host lands past the counter (next index 2, the record said 1)');
like($r->{out}, qr/exit status 1: signing refuses this file/, 'show exits 1 on the copied-back file (klms-state(1): signing would refuse it)');
like($r->{err}, qr/indices skipped/, 'resync says how many indices it skipped');
like($r->{err}, qr/bind it to this host's TPM/, 'on a new host the restored file waits for adopt --witness tpm');
like($r->{err}, qr/retired \(exhausted\)/, 'retire');

my $ledger = reuse_ledger(pubout("$work/k.pem"));
my $signatures = 0;
for my $sig (sort glob("$work/sigs/*.sig")) {
    next if $sig =~ /last\.sig$/;
    (my $msg = $sig) =~ s/\.sig$/.bin/;
    my $a = $ledger->add(sig => slurp($sig), msg => slurp($msg), label => $sig);
    ok($a->{ok}, "signature $sig verifies (q = $a->{q})");
    $signatures++;
}
cmp_ok($signatures, '>=', 6, "the session signed $signatures images");
ledger_ok($ledger, 'docs/backup.md');

done_testing();
