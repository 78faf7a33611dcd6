# The corruption matrix: damage the state file at one byte offset — flip a bit, zero the
# byte, or truncate the file there — then sign; signing must refuse (with an error) or sign with an
# index that never left a process before. The state file's format is not known here: its size is
# read, and the offsets are chosen from its bytes.
#
# History before the damage: three processes sign with reservations (reserve:4 once, reserve:4
# twice, then one plain signature), so that the file holds a current slot and an older one whose
# index the last reservations already used. Every case starts from the same bytes: they are written
# back in place (the same inode: a copy would be refused as copied), then damaged in place.
# Restoring old bytes in place is itself the one rollback the store cannot see (docs/state-file-guide.md "What you must never do"), so each
# case is judged against the history only, with its own ledger (test/support/Ledger.pm, verified
# by the real openssl where signatures collide).
#
# KLMS_REUSE_CORRUPT_SIZE=full: every byte offset. Default (ci): every offset whose byte, or a
# neighbour's, is not zero, plus every 128th offset and the last one; in sanitizer builds (small):
# every offset whose byte is not zero, every 1024th and the last.
use strict;
use warnings;
use Test::More;
use Fcntl qw(O_RDWR SEEK_SET);
use KlmsTest;
use ReuseTest;

# Sanitizer builds (every openssl process several times slower) take the non-zero bytes only by default.
my $size_mode = $ENV{KLMS_REUSE_CORRUPT_SIZE} // ($ENV{KLMS_SANITIZER_PRELOAD} ? 'small' : 'ci');
my $dir = private_dir();
mkdir "$dir/st", 0700 or die;
my ($key, $state) = ("$dir/key.pem", "$dir/st/key.state");
my $g = hss_key($key, $state, 'LMS_SHA256_M32_H5', 'LMOTS_SHA256_N32_W4');
is($g->{status}, 0, 'genpkey H5') or BAIL_OUT($g->{err});
my $pub = pubout($key);

my $seq = 0;
sub sign_one {
    my ($text, @opts) = @_;
    my $i = ++$seq;
    spew("$dir/m$i.msg", $text);
    unlink "$dir/m$i.sig";
    my $r = openssl_limited(60, 'pkeyutl', '-sign', '-rawin', '-inkey', $key, '-in', "$dir/m$i.msg", '-out', "$dir/m$i.sig",
                            map { ('-pkeyopt', $_) } @opts);
    $r->{sig} = -s "$dir/m$i.sig" ? slurp("$dir/m$i.sig") : undef;
    $r->{msg} = $text;
    return $r;
}

# The history.
my @history;
for my $h (['reserve:4', 1], ['reserve:4', 2], [undef, 1]) {
    my ($opt, $count) = @$h;
    # One process signs `count` times: pkeyutl signs once, so use the EVP signer for two.
    if ($count == 1) {
        my $r = sign_one("history " . scalar(@history), grep { defined } $opt);
        is($r->{status}, 0, 'history signature') or diag $r->{err};
        push @history, [$r->{sig}, $r->{msg}];
    } else {
        my $out = "$dir/hist";
        mkdir $out, 0700;
        my $r = run_limited(60, [tool('klms-evp-signer'), '--key', $key, '--message', 'history from one process',
                                 '--count', $count, '--reserve', 4, '--out-dir', $out]);
        is($r->{status}, 0, 'history signatures from one process') or diag $r->{err};
        push @history, map { [slurp($_), 'history from one process'] } sort glob("$out/sig-*.bin");
        unlink glob("$out/*");
    }
}
my $base = reuse_ledger($pub);
$base->add(sig => $_->[0], msg => $_->[1], label => 'history') for @history;
is($base->summary->{signatures}, 4, 'four history signatures, all verifying');
ledger_ok($base, 'history');
my $history_max = $base->summary->{max_q};

my $pristine = slurp($state);
my $size = length $pristine;
cmp_ok($size, '>', 0, "state file of $size bytes");
my @ino = (stat $state)[0, 1];

sub put_back {
    sysopen(my $fh, $state, O_RDWR) or die "$state: $!";
    binmode $fh;
    sysseek($fh, 0, SEEK_SET);
    syswrite($fh, $pristine) == $size or die "write back: $!";
    truncate($fh, $size) or die "truncate: $!";
    close $fh;
}
sub damage {
    my ($how, $off) = @_;
    sysopen(my $fh, $state, O_RDWR) or die "$state: $!";
    binmode $fh;
    if ($how eq 'truncate') {
        truncate($fh, $off) or die "truncate: $!";
    } else {
        my $b = ord substr($pristine, $off, 1);
        my $new = $how eq 'flip' ? $b ^ (1 << ($off % 8)) : 0;
        sysseek($fh, $off, SEEK_SET);
        syswrite($fh, chr $new) == 1 or die "write: $!";
    }
    close $fh;
}

my @offsets;
if ($size_mode eq 'full') {
    @offsets = 0 .. $size - 1;
} else {
    my %pick;
    my $near = $size_mode eq 'small' ? 0 : 1;
    for my $o (0 .. $size - 1) {
        next unless substr($pristine, $o, 1) ne "\0";
        $pick{$_} = 1 for grep { $_ >= 0 && $_ < $size } $o - $near .. $o + $near;
    }
    $pick{$_} = 1 for grep { $_ % ($size_mode eq 'small' ? 1024 : 128) == 0 } 0 .. $size - 1;
    $pick{ $size - 1 } = 1;
    @offsets = sort { $a <=> $b } keys %pick;
}

# A control first: the untouched bytes put back sign with an index beyond the history.
put_back();
my $control = sign_one('control');
is($control->{status}, 0, 'the pristine bytes written back sign') or diag $control->{err};
my $cl = reuse_ledger($pub, verify_mode => 'collisions');
$cl->add(sig => $_->[0], msg => $_->[1], label => 'history') for @history;
my $ca = $cl->add(sig => $control->{sig} // '', msg => 'control', label => 'control');
ok($ca->{ok} && $ca->{q} > $history_max, "control signs beyond the history (q $ca->{q})");
is_deeply([(stat $state)[0, 1]], \@ino, 'writing back keeps the inode');

my (%outcome, @problems, %totals, %reused);
my $cases = 0;
for my $off (@offsets) {
    for my $how ('flip', 'zero', 'truncate') {
        next if $how eq 'zero' && substr($pristine, $off, 1) eq "\0";  # no damage
        $cases++;
        put_back();
        damage($how, $off);
        my $r = sign_one("after $how at $off");
        $totals{signers}++;
        my $case = "$how at $off";
        if ($r->{hung}) { push @problems, "$case: signing hung"; next }
        if ($r->{status} != 0) {
            push @problems, "$case: refused without an error message (status $r->{status})" unless $r->{err} =~ /\S/;
            push @problems, "$case: refused but wrote a signature" if defined $r->{sig};
            my ($reason) = $r->{err} =~ /error:[0-9A-Fa-f]+:[^:\n]*:[^:\n]*:([^:\n]+)/;
            $outcome{ 'refused: ' . ($reason // 'other') }++;
            next;
        }
        my $l = reuse_ledger($pub, verify_mode => 'collisions');
        $l->add(sig => $_->[0], msg => $_->[1], label => 'history') for @history;
        my $a = $l->add(sig => $r->{sig} // '', msg => $r->{msg}, label => $case);
        if (!$a->{ok}) { push @problems, "$case: signed, but the signature $a->{why}"; next }
        if ($l->reuses) {
            push @problems, map { "$case: REUSE $_" } $l->reuses;
            $totals{reuses} += $l->reuses;
            push @{ $reused{$how} }, $off;
        }
        elsif ($a->{q} <= $history_max) { push @problems, "$case: signed with index $a->{q}, not beyond the history (max $history_max)" }
        $outcome{ $a->{q} > $history_max ? 'signed beyond the history' : "signed index $a->{q}" }++;
        $totals{signatures}++;
    }
}
put_back();
# Offsets where damage made a one-time key sign twice, as ranges.
for my $how (sort keys %reused) {
    my @r;
    for my $o (@{ $reused{$how} }) {
        if (@r && $r[-1][1] == $o - 1) { $r[-1][1] = $o } else { push @r, [$o, $o] }
    }
    diag("$how at these offsets signed an index again: " . join(', ', map { $_->[0] == $_->[1] ? $_->[0] : "$_->[0]-$_->[1]" } @r));
}
note(sprintf('%d offsets of %d, %d cases', scalar @offsets, $size, $cases));
note("$_: $outcome{$_}") for sort keys %outcome;
ok(!@problems, "every damaged state file was refused or signed beyond the history ($cases cases)")
    or diag join("\n", (@problems > 40 ? (@problems[0 .. 39], '... ' . (@problems - 40) . ' more') : @problems));
reuse_summary(signers => $totals{signers}, signatures => ($totals{signatures} // 0) + @history, reuses => $totals{reuses});
done_testing();
