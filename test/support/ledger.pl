#!/usr/bin/perl
# ledger.pl: the one-time-key reuse ledger (test/support/Ledger.pm) as a command.
#
#   ledger.pl --pub PUB.pem [--verify | --verify-collisions] [--msg FILE] [--manifest FILE]
#             [--dir DIR] [SIG[=MSG] ...]
#
#   --pub FILE           the HSS, XMSS or XMSS^MT public key (PEM or DER SubjectPublicKeyInfo; openssl pkey -pubout)
#   --verify             count only signatures that `openssl pkeyutl -verify -rawin -pubin` accepts
#   --verify-collisions  verify only the signatures of a collision (same verdict, fewer processes)
#   --msg FILE           the message of every signature given without its own
#   --manifest FILE      lines "SIGFILE MSGFILE" (or just "SIGFILE" with --msg)
#   --dir DIR            every DIR/*.sig, with DIR/<same name>.msg when it exists, else --msg;
#                        and every DIR/sig-*.bin with DIR/msg-*.bin (klms-evp-signer --out-dir)
#   SIG[=MSG]            a signature file and its message file
#
# Prints one line "ledger: signatures=N rejected=N pairs=N reuses=N max_q=Q" (pairs = distinct
# (tree, q) over every level), and before it every reuse found. Exit status: 0 no reuse, 1 reuse
# found, 2 usage error. Runs openssl as $OPENSSL_BIN (default openssl) with the environment given
# (OPENSSL_CONF / OPENSSL_MODULES must load the klms provider for --verify).
use strict;
use warnings;
use FindBin;
use lib $FindBin::Bin;
use Getopt::Long;
use Ledger;

my ($pub_file, $verify, $verify_coll, $default_msg, $manifest, @dirs);
GetOptions('pub=s' => \$pub_file, 'verify' => \$verify, 'verify-collisions' => \$verify_coll, 'msg=s' => \$default_msg,
           'manifest=s' => \$manifest, 'dir=s' => \@dirs) or exit 2;
defined $pub_file or do { print STDERR "ledger.pl: --pub required\n"; exit 2 };

sub slurp {
    my ($p) = @_;
    open my $fh, '<:raw', $p or die "ledger.pl: $p: $!\n";
    local $/;
    return scalar <$fh>;
}

my $openssl = $ENV{OPENSSL_BIN} // 'openssl';
my %msg_file_of;  # message bytes -> a file holding them (verification needs files)
my $verifier = sub {
    my ($sig, $msg, $sigfile, $msgfile) = @_;
    my $pid = open(my $fh, '-|') // die "ledger.pl: fork: $!\n";
    if ($pid == 0) {
        open STDERR, '>', '/dev/null';
        exec $openssl, 'pkeyutl', '-verify', '-rawin', '-pubin', '-inkey', $pub_file, '-in', $msgfile, '-sigfile', $sigfile;
        exit 127;
    }
    local $/;
    my $out = <$fh> // '';
    close $fh;
    return $? == 0 && $out =~ /Signature Verified Successfully/;
};

my @items;  # [sigfile, msgfile]
for my $arg (@ARGV) {
    my ($s, $m) = split /=/, $arg, 2;
    push @items, [$s, $m // $default_msg];
}
if (defined $manifest) {
    open my $fh, '<', $manifest or die "ledger.pl: $manifest: $!\n";
    while (<$fh>) {
        chomp;
        next unless length;
        my ($s, $m) = split ' ', $_, 2;
        push @items, [$s, $m // $default_msg];
    }
}
for my $d (@dirs) {
    for my $s (sort glob("$d/*.sig")) {
        (my $m = $s) =~ s/\.sig\z/.msg/;
        push @items, [$s, -e $m ? $m : $default_msg];
    }
    for my $s (sort glob("$d/sig-*.bin")) {
        (my $m = $s) =~ s{/sig-([^/]*)\z}{/msg-$1};
        push @items, [$s, -e $m ? $m : $default_msg];
    }
}
for my $it (@items) {
    defined $it->[1] or do { print STDERR "ledger.pl: no message for $it->[0]\n"; exit 2 };
}

# The Ledger's verify callback gets bytes; hand the files to openssl.
my %file_of;
my $ledger = Ledger::for_public_key(slurp($pub_file),
                         verify => ($verify || $verify_coll) ? sub { $verifier->(@_, @{ $file_of{ $_[0] . "\0" . $_[1] } }) } : undef,
                         verify_mode => $verify ? 'all' : $verify_coll ? 'collisions' : 'none');
for my $it (@items) {
    my ($s, $m) = @$it;
    my ($sig, $msg) = (slurp($s), slurp($m));
    $file_of{ $sig . "\0" . $msg } = [$s, $m];
    $ledger->add(sig => $sig, msg => $msg, label => $s);
}
print "REUSE: $_\n" for $ledger->reuses;
print $ledger->summary_line, "\n";
exit($ledger->reuses ? 1 : 0);
