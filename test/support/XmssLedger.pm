# XmssLedger: the one-time-key reuse checker (test/support/Ledger.pm) for XMSS and XMSS^MT keys.
#
# It parses XMSS signatures (RFC 8391 §4.1.8: u32 idx_sig || r || WOTS+ signature (len * n) ||
# auth path (h * n)) and XMSS^MT signatures (§4.2.4: idx_sig in ceil(h / 8) bytes || r || d reduced
# signatures, bottom layer first, each WOTS+ signature (len * n) || auth path (h/d * n)) itself,
# without any of the project's engine code, with the set read from the public key's type code
# (u32 oid || root || SEED, RFC 8391 Appendix B.3, C.3): every set of SP 800-208 §5 (n = 32 and
# n = 24, SHA-256 and SHAKE256) and the K-XMSS private-use codes of docs/xmss.md.
#
# The one-time keys. XMSS: the leaf idx_sig of the one tree. XMSS^MT (RFC 8391 §4.2.4): layer j
# (0 = bottom) signs with leaf idx_leaf_j = (idx_sig >> j·h') mod 2^h' of tree idx_tree_j =
# idx_sig >> (j + 1)·h', h' = h/d; its key is (j, idx_tree_j, idx_leaf_j).
#
# What a one-time key signed. A layer above the bottom signs the root of the tree below it, which
# is not in the signature (a verifier recomputes it): every signature of one bottom tree repeats the
# same layer-1 signature, and that is no reuse. The ledger compares the WOTS+ signature bytes at
# each layer instead: WOTS+ signing is deterministic (RFC 8391 §3.1.5: chain i run base_w(M)[i]
# steps from the private element), so one key signing one digest gives the same bytes every time,
# and two different byte strings from one key are two different digests signed — a reuse, whether
# at the bottom (two messages) or above (two different roots under one leaf, which no correct
# signer makes). This is exact for every layer without recomputing a hash, so it holds for K-XMSS
# too (LSH-256 and Tandem-DM, which Perl has not). The same message signed again at one index gives the same
# bytes (r = PRF(SK_PRF, toByte(idx, 32)), SP 800-208) and is harmless.
#
#   my $l = XmssLedger->new(pub => $raw_public_key, scheme => 'xmss' | 'xmssmt', verify => sub { ... },
#                           verify_mode => 'all' | 'collisions' | 'none');
#   $l->add(sig => $bytes, msg => $bytes, label => '...')
#     # { ok => 1, q => idx_sig, levels => [leaf of the top layer, ..., leaf of the bottom layer] }
#   $l->parse($sig, $msg), $l->prefix_q($sig), $l->reuses, $l->summary, $l->summary_line  (as Ledger)
package XmssLedger;

use strict;
use warnings;
use Digest::SHA qw(sha256_hex);
use POSIX ();
# reuses, summary and summary_line are Ledger's: the same fields (signatures, rejected, seen, reuses, max_q).
require Ledger;
our @ISA = ('Ledger');

# The XMSS^MT shapes (h, d) in code order within each hash block (RFC 8391 §5.4, SP 800-208 §5).
my @MT_SHAPES = ([20, 2], [20, 4], [40, 2], [40, 4], [40, 8], [60, 3], [60, 6], [60, 12]);

# WOTS+ len for n bytes and Winternitz w = 2^lgw (RFC 8391 §3.1.1): len_1 = ceil(8n / lg w),
# len_2 = floor(log2(len_1 (w - 1)) / lg w) + 1.
sub _wots_len {
    my ($n, $lgw) = @_;
    my $len1 = POSIX::ceil(8 * $n / $lgw);
    my $lg = 0;
    for (my $x = $len1 * ((1 << $lgw) - 1); $x > 1; $x >>= 1) { $lg++ }
    return $len1 + int($lg / $lgw) + 1;
}

# { n, h, d, hp, len, idx_bytes, sig_len } of a type code, or undef for a code of no set here.
sub params {
    my ($scheme, $code) = @_;
    my ($n, $h, $d, $lgw) = (undef, undef, 1, 4);
    if ($scheme eq 'xmss') {
        # SHA2_256 0x01-03, SHA2_192 0x0D-0F, SHAKE256_256 0x10-12, SHAKE256_192 0x13-15 (heights 10, 16, 20);
        # 0x04-0x0C are RFC 8391 sets SP 800-208 does not approve.
        my %first = (0x01 => 32, 0x0D => 24, 0x10 => 32, 0x13 => 24);
        for my $f (keys %first) {
            ($n, $h) = ($first{$f}, (10, 16, 20)[$code - $f]) if $code >= $f && $code < $f + 3;
        }
        # K-XMSS: 0xE0000000 | hash << 16 | lg w << 8 | h, hash 1-4, lg w 2/4/8, h 10/15/16/20, n = 32.
        if (($code & 0xFF000000) == 0xE0000000 && !defined $n) {
            my ($hash, $lw, $hh) = (($code >> 16) & 0xFF, ($code >> 8) & 0xFF, $code & 0xFF);
            return undef unless $hash >= 1 && $hash <= 4 && grep({ $_ == $lw } 2, 4, 8) && grep({ $_ == $hh } 10, 15, 16, 20);
            ($n, $h, $lgw) = (32, $hh, $lw);
        }
    } elsif ($scheme eq 'xmssmt') {
        # SHA2_256 0x01-08, SHA2_192 0x21-28, SHAKE256_256 0x29-30, SHAKE256_192 0x31-38.
        my %first = (0x01 => 32, 0x21 => 24, 0x29 => 32, 0x31 => 24);
        for my $f (keys %first) {
            ($n, $h, $d) = ($first{$f}, @{ $MT_SHAPES[$code - $f] }) if $code >= $f && $code < $f + 8;
        }
    } else {
        die "XmssLedger: scheme '$scheme' is neither xmss nor xmssmt\n";
    }
    return undef unless defined $n;
    my $len = _wots_len($n, $lgw);
    my $hp = $h / $d;
    my $idx_bytes = $scheme eq 'xmss' ? 4 : POSIX::ceil($h / 8);
    return { n => $n, h => $h, d => $d, hp => $hp, len => $len, idx_bytes => $idx_bytes,
             sig_len => $idx_bytes + $n + $d * ($len + $hp) * $n };
}

sub new {
    my ($class, %o) = @_;
    my $pub = $o{pub} // die "XmssLedger->new: pub required\n";
    my $scheme = $o{scheme} // die "XmssLedger->new: scheme required (a type code means nothing without it)\n";
    die "XmssLedger: public key too short\n" if length $pub < 4;
    my $p = params($scheme, unpack('N', $pub))
        or die sprintf("XmssLedger: type code 0x%08x is no %s set\n", unpack('N', $pub), $scheme);
    die "XmssLedger: public key length\n" if length($pub) != 4 + 2 * $p->{n};
    return bless { scheme => $scheme, p => $p, pub => $pub, verify => $o{verify},
                   mode => $o{verify_mode} // ($o{verify} ? 'all' : 'none'), seen => {}, reuses => [], signatures => 0,
                   rejected => 0, max_q => undef, verified => {} }, $class;
}

sub _index {
    my ($self, $sig) = @_;
    my $idx = 0;
    $idx = $idx * 256 + ord(substr($sig, $_, 1)) for 0 .. $self->{p}{idx_bytes} - 1;
    return $idx;
}

# The layers of one signature: ([ { layer, tree, leaf, ots, msg } ... ] bottom first, idx_sig) or (undef, why).
sub parse {
    my ($self, $sig, $msg) = @_;
    my $p = $self->{p};
    return (undef, "truncated: " . length($sig) . " bytes, the set's signatures have $p->{sig_len}") if length $sig < $p->{sig_len};
    return (undef, "trailing bytes: " . length($sig) . " bytes, the set's signatures have $p->{sig_len}") if length $sig > $p->{sig_len};
    my $idx = $self->_index($sig);
    return (undef, "idx_sig $idx beyond 2^$p->{h}") if $idx >= 2**$p->{h};
    my $off = $p->{idx_bytes} + $p->{n};
    my @layers;
    my $leaves = 2**$p->{hp};
    my $rest = $idx;
    for my $j (0 .. $p->{d} - 1) {
        my $leaf = $rest % $leaves;
        $rest = ($rest - $leaf) / $leaves;
        push @layers, { layer => $j, tree => $rest, leaf => $leaf, ots => substr($sig, $off, $p->{len} * $p->{n}) };
        $off += ($p->{len} + $p->{hp}) * $p->{n};
    }
    return (\@layers, $idx);
}

# The index of a signature that may be cut short: its first field.
sub prefix_q {
    my ($self, $sig) = @_;
    return undef if length $sig < $self->{p}{idx_bytes};
    my $idx = $self->_index($sig);
    return $idx < 2**$self->{p}{h} ? $idx : undef;
}

sub _verified {
    my ($self, $sig, $msg) = @_;
    return 1 unless $self->{verify};
    my $k = sha256_hex($sig) . sha256_hex($msg);
    $self->{verified}{$k} //= $self->{verify}->($sig, $msg) ? 1 : 0;
    return $self->{verified}{$k};
}

sub add {
    my ($self, %o) = @_;
    my ($sig, $msg, $label) = ($o{sig}, $o{msg}, $o{label} // 'signature ' . ($self->{signatures} + $self->{rejected} + 1));
    my ($layers, $idx) = $self->parse($sig, $msg);
    if (!$layers) { $self->{rejected}++; return { ok => 0, why => "malformed: $idx" } }
    if ($self->{mode} eq 'all' && !$self->_verified($sig, $msg)) {
        $self->{rejected}++;
        return { ok => 0, why => 'does not verify' };
    }
    my @found;
    for my $lv (@$layers) {
        my $old = $self->{seen}{"$lv->{layer}:$lv->{tree}:$lv->{leaf}"};
        push @found, [$lv, $old] if $old && $old->{ots} ne sha256_hex($lv->{ots});
    }
    if (@found && $self->{mode} eq 'collisions') {
        if (!$self->_verified($sig, $msg)) {
            $self->{rejected}++;
            return { ok => 0, why => 'does not verify' };
        }
        @found = grep { $self->_verified($_->[1]{sig}, $_->[1]{fullmsg}) } @found;
    }
    for my $f (@found) {
        my ($lv, $old) = @$f;
        my $what = $lv->{layer} == 0
            ? ($old->{fullmsg} eq $msg ? 'the same message with another randomizer r' : 'two different messages')
            : 'two different roots of the layer below';
        push @{ $self->{reuses} }, sprintf('%s layer %d tree %d leaf %d signed %s: [%s] %s... and [%s] %s... (idx_sig %d and %d)',
            $self->{scheme}, $lv->{layer}, $lv->{tree}, $lv->{leaf}, $what, $old->{label},
            substr(sha256_hex($old->{fullmsg}), 0, 16), $label, substr(sha256_hex($msg), 0, 16), $old->{idx}, $idx);
    }
    for my $lv (@$layers) {
        $self->{seen}{"$lv->{layer}:$lv->{tree}:$lv->{leaf}"} //= { ots => sha256_hex($lv->{ots}), label => $label, sig => $sig, fullmsg => $msg, idx => $idx };
    }
    $self->{signatures}++;
    $self->{max_q} = $idx if !defined $self->{max_q} || $idx > $self->{max_q};
    return { ok => 1, q => $idx, levels => [map { $_->{leaf} } reverse @$layers] };
}

1;
