# A key, its state file and its tree caches made by an earlier build (test/data/state, made with
# the commands in test/data/SOURCES.md) still sign with this one: the private-key octets decode,
# the state file's parameters digest still matches the key's levels (an L = 2 key, so a changed
# digest input would be refused as kStateParamsMismatch), the tree caches are found under the same
# names and read without a rebuild, signing goes on at the file's next index, and the earlier
# build's signature still verifies. Costs about a second.
use strict;
use warnings;
use Test::More;
use File::Copy qw(copy);
use KlmsTest;

my $data = "$ENV{KLMS_TEST_DATA}/state";
my $dir = private_dir();
my $klms_state = tool('klms-state');
my $key = "$data/main-hss-l2.pem";
my $pub = "$data/main-hss-l2.pub.pem";
my $msg = "$data/main-hss-l2.msg";
my $shapes = state_shapes('LMS_SHA256_M32_H5,LMS_SHA256_M32_H5', 'LMOTS_SHA256_N32_W4');

# openssl pkeyutl -verify with the earlier build's public key.
sub verifies {
    my ($sigfile) = @_;
    my $r = openssl_st('pkeyutl', '-verify', '-rawin', '-pubin', '-inkey', $pub, '-in', $msg, '-sigfile', $sigfile);
    return $r->{status} == 0 && $r->{out} =~ /Signature Verified Successfully/;
}

# The state file and its caches as a user moves them to a new machine: copied, 0600, then adopted
# (docs/state.md §4), which records the new file's identity and nothing else.
my $state = "$dir/main-hss-l2.state";
for my $suffix ('', '.cache', '.cache.level2') {
    copy("$data/main-hss-l2.state$suffix", "$state$suffix") or die "copy: $!";
    chmod 0600, "$state$suffix";
}
my $r = run_cmd_st([$klms_state, 'adopt', '--yes-i-destroyed-the-original', $state]);
is($r->{status}, 0, 'klms-state adopt the earlier build\'s state file') or diag $r->{err};
is(state_show($state)->{next}, 3, 'its next index is 3 (three signatures by the earlier build)');

ok(verifies("$data/main-hss-l2.sig2.bin"), 'the earlier build\'s signature at index 2 verifies');

my $text = openssl_st('pkey', '-in', $key, '-noout', '-text');
is($text->{status}, 0, 'pkey -text reads the earlier build\'s private key') or diag $text->{err};
like($text->{out}, qr/LMS_SHA256_M32_H5/, '... with its levels');

# KLMS_PROGRESS=1 prints a line when a tree cache is missing or unusable: none may appear.
my @q;
for my $n (1 .. 2) {
    my $s = state_sign(key => $key, in => $msg, out => "$dir/sig$n.bin", shapes => $shapes,
                       pkeyopt => ["state-file:$state"], env => { KLMS_PROGRESS => '1' });
    is($s->{status}, 0, "signature $n with the earlier build's key and state file") or diag $s->{err};
    unlike($s->{err}, qr/tree cache .*(missing|unusable)|rebuilding/, '... reading its tree caches, no rebuild');
    ok(verifies($s->{file}), '... verifies with the earlier build\'s public key');
    push @q, $s->{q};
}
is_deeply(\@q, [3, 4], 'signs at indices 3 and 4, after the earlier build\'s 0..2');
is(state_show($state)->{next}, 5, 'the state file moved on to 5');

done_testing();
