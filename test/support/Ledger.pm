# Ledger: an independent one-time-key reuse checker.
#
# It parses HSS signatures itself (RFC 8554 §5.4 LMS signature, §4.5 LM-OTS signature, §6.2 HSS
# signature) without any of the project's engine code, and for every level of every signature
# records (tree identity, leaf q) -> (randomizer C, signed message). The tree identity is the LMS
# public key the level is checked under: the key's own public key for the top level, the signed
# child public key (u32 LMS type | u32 LM-OTS type | I | T[1]) for every lower level. The message a
# level signs is the child public key for upper levels and the application's message for the last.
# One (tree, q) seen with two different (C, message) pairs is a one-time key that signed twice: a
# reuse. (The same message with a different C is a reuse as well: the OTS key signed two different
# digests.) The same (C, message) twice is the same signature made again and harmless.
#
#   my $l = Ledger->new(pub => $raw_hss_public_key, verify => sub { my ($sig, $msg) = @_; ... },
#                       verify_mode => 'all' | 'collisions' | 'none');
#   my $r = $l->add(sig => $bytes, msg => $bytes, label => 'where it came from');
#     # { ok => 1, q => global index, levels => [q_0, ...] } or { ok => 0, why => '...' }
#   $l->reuses;      # list of human-readable collision descriptions
#   $l->summary;     # { signatures, rejected, pairs, reuses, max_q }
#
# With verify_mode 'all' every signature must pass `verify` to be counted; with 'collisions' only
# the signatures taking part in a collision are verified (the result about reuse is the same, and
# it costs one verification per suspicious signature instead of one per signature).
package Ledger;

use strict;
use warnings;
use Digest::SHA qw(sha256_hex);
use MIME::Base64 ();
use POSIX ();

# Parameter sets from their type codes (RFC 8554 §4.1/§5.1, RFC 9858 and the K-LMS private-use
# codes 0xE0000000 | hash << 8 | ncode << 4 | index of docs/formats.md "Parameter sets").
my @W = (1, 2, 4, 8);
my @H = (5, 10, 15, 20, 25);

sub ots_params {
    my ($code) = @_;
    my ($n, $wi);
    if ($code >= 1 && $code <= 16) {
        my $k = $code - 1;
        $n = (($k >> 2) & 1) ? 24 : 32;
        $wi = $k & 3;
    } elsif (($code & 0xFFFFF000) == 0xE0000000 && (($code >> 8) & 0xF) >= 1 && (($code >> 8) & 0xF) <= 4) {
        my $nc = ($code >> 4) & 0xF;
        $wi = $code & 0xF;
        return undef if $nc > 1 || $wi > 3;
        $n = $nc ? 24 : 32;
    } else {
        return undef;
    }
    my $w = $W[$wi];
    # RFC 8554 Appendix B: u = ceil(8n/w), v = ceil((floor(lg((2^w - 1) * u)) + 1) / w), p = u + v.
    my $u = POSIX::ceil(8 * $n / $w);
    my $lg = 0;
    for (my $x = ((1 << $w) - 1) * $u; $x > 1; $x >>= 1) { $lg++ }
    my $v = POSIX::ceil(($lg + 1) / $w);
    return { n => $n, w => $w, p => $u + $v };
}

sub lms_params {
    my ($code) = @_;
    my ($m, $hi);
    if ($code >= 5 && $code <= 0x18) {
        my $k = $code - 5;
        $m = (int($k / 5) % 2) ? 24 : 32;
        $hi = $k % 5;
    } elsif (($code & 0xFFFFF000) == 0xE0000000 && (($code >> 8) & 0xF) >= 1 && (($code >> 8) & 0xF) <= 4) {
        my $mc = ($code >> 4) & 0xF;
        $hi = $code & 0xF;
        return undef if $mc > 1 || $hi > 4;
        $m = $mc ? 24 : 32;
    } else {
        return undef;
    }
    return { m => $m, h => $H[$hi] };
}

# The raw HSS public key (u32 L | LMS public key) from PEM or DER SubjectPublicKeyInfo, or raw.
sub public_key_bytes {
    my ($data) = @_;
    if ($data =~ /-----BEGIN PUBLIC KEY-----\r?\n(.*?)-----END/s) {
        $data = MIME::Base64::decode_base64($1);
    }
    return $data if length($data) >= 8 && unpack('N', $data) >= 1 && unpack('N', $data) <= 8
        && ord($data) == 0;  # raw already (u32 L is 00 00 00 0L; a DER SPKI starts with 0x30)
    # SPKI: SEQUENCE { SEQUENCE { OID ... }, BIT STRING 00 | key } (RFC 9708), or the RFC 8708 form
    # with an OCTET STRING inside the BIT STRING.
    my @top = _der_items($data) or die "Ledger: not a public key\n";
    my @spki = _der_items($top[0]{content});
    die "Ledger: not a SubjectPublicKeyInfo\n" unless @spki == 2 && $spki[1]{tag} == 0x03;
    my $bits = substr($spki[1]{content}, 1);
    if (ord($bits) == 0x04) {
        my @inner = eval { _der_items($bits) };
        $bits = $inner[0]{content} if @inner == 1 && $inner[0]{tag} == 0x04;
    }
    return $bits;
}

# The scheme and raw public key of a PEM or DER SubjectPublicKeyInfo (or a raw HSS key): ('hss' |
# 'xmss' | 'xmssmt', raw bytes), from the algorithm's OID (RFC 9708 id-alg-hss-lms-hashsig; RFC 9802
# id-alg-xmss-hashsig 1.3.6.1.5.5.7.6.34 and id-alg-xmssmt-hashsig .35, whose BIT STRING holds the
# raw RFC 8391 public key).
my %SCHEME_OF_OID = ('2b06010505070622' => 'xmss', '2b06010505070623' => 'xmssmt');
sub public_key_scheme {
    my ($data) = @_;
    my $der = $data;
    $der = MIME::Base64::decode_base64($1) if $der =~ /-----BEGIN PUBLIC KEY-----\r?\n(.*?)-----END/s;
    if (ord($der) == 0x30) {
        my @top = eval { _der_items($der) };
        my @spki = @top ? eval { _der_items($top[0]{content}) } : ();
        my @alg = @spki ? eval { _der_items($spki[0]{content}) } : ();
        if (@alg && $alg[0]{tag} == 0x06 && (my $s = $SCHEME_OF_OID{ unpack('H*', $alg[0]{content}) })) {
            return ($s, substr($spki[1]{content}, 1));
        }
    }
    return ('hss', public_key_bytes($data));
}

# A ledger for the key in `data` (PEM or DER SubjectPublicKeyInfo): this one for HSS, XmssLedger
# (test/support/XmssLedger.pm) for XMSS and XMSS^MT. Options as new.
sub for_public_key {
    my ($data, %o) = @_;
    my ($scheme, $raw) = public_key_scheme($data);
    return Ledger->new(%o, pub => $raw) if $scheme eq 'hss';
    require XmssLedger;
    return XmssLedger->new(%o, pub => $raw, scheme => $scheme);
}

sub _der_items {
    my ($der) = @_;
    my @items;
    my $pos = 0;
    while ($pos < length $der) {
        die "Ledger: truncated DER\n" if $pos + 2 > length $der;
        my $tag = ord substr($der, $pos, 1);
        my $len = ord substr($der, $pos + 1, 1);
        my $hdr = 2;
        if ($len & 0x80) {
            my $k = $len & 0x7f;
            die "Ledger: bad DER length\n" if $k == 0 || $k > 4 || $pos + 2 + $k > length $der;
            $len = 0;
            $len = $len * 256 + ord(substr($der, $pos + 2 + $_, 1)) for 0 .. $k - 1;
            $hdr += $k;
        }
        die "Ledger: DER overruns\n" if $pos + $hdr + $len > length $der;
        push @items, { tag => $tag, content => substr($der, $pos + $hdr, $len) };
        $pos += $hdr + $len;
    }
    return @items;
}

sub new {
    my ($class, %o) = @_;
    my $pub = $o{pub} // die "Ledger->new: pub required\n";
    die "Ledger: public key too short\n" if length $pub < 8;
    my $L = unpack('N', $pub);
    my $top = substr($pub, 4);
    my $lp = lms_params(unpack('N', $top)) or die "Ledger: unknown LMS type in the public key\n";
    die "Ledger: public key length\n" if length($top) != 8 + 16 + $lp->{m};
    return bless { L => $L, top => $top, verify => $o{verify}, mode => $o{verify_mode} // ($o{verify} ? 'all' : 'none'),
                   seen => {}, reuses => [], signatures => 0, rejected => 0, max_q => undef, verified => {},
                   labels => {} }, $class;
}

# The levels of one signature: ([ { tree, q, c, msg } ... ], global q) or (undef, why).
sub parse {
    my ($self, $sig, $msg) = @_;
    my $len = length $sig;
    return (undef, 'shorter than 4 bytes') if $len < 4;
    my $nspk = unpack('N', $sig);
    return (undef, "Nspk $nspk for a key of L = $self->{L}") if $nspk + 1 != $self->{L};
    my $off = 4;
    my $tree = $self->{top};
    my @levels;
    my $q_global = 0;
    for my $i (0 .. $nspk) {
        my $tp = lms_params(unpack('N', $tree));
        my $op = ots_params(unpack('N', substr($tree, 4, 4)));
        return (undef, "level $i: unknown type in the tree key") unless $tp && $op;
        return (undef, "level $i: truncated") if $off + 8 > $len;
        my $q = unpack('N', substr($sig, $off, 4));
        my $ots_type = unpack('N', substr($sig, $off + 4, 4));
        return (undef, "level $i: LM-OTS type $ots_type differs from the tree's") if $ots_type != unpack('N', substr($tree, 4, 4));
        my $n = $op->{n};
        my $c_off = $off + 8;
        my $lms_type_off = $off + 8 + $n + $op->{p} * $n;
        return (undef, "level $i: truncated") if $lms_type_off + 4 > $len;
        return (undef, "level $i: LMS type differs from the tree's") if unpack('N', substr($sig, $lms_type_off, 4)) != unpack('N', $tree);
        return (undef, "level $i: q $q beyond 2^h") if $q >= 2**$tp->{h};
        my $end = $lms_type_off + 4 + $tp->{h} * $tp->{m};
        return (undef, "level $i: truncated") if $end > $len;
        my $c = substr($sig, $c_off, $n);
        $off = $end;
        my ($signed, $child);
        if ($i < $nspk) {
            return (undef, "level $i: truncated child key") if $off + 8 > $len;
            my $cp = lms_params(unpack('N', substr($sig, $off, 4)));
            return (undef, "level $i: unknown child LMS type") unless $cp;
            my $clen = 8 + 16 + $cp->{m};
            return (undef, "level $i: truncated child key") if $off + $clen > $len;
            $child = substr($sig, $off, $clen);
            $signed = $child;
            $off += $clen;
        } else {
            $signed = $msg;
        }
        push @levels, { tree => $tree, q => $q, c => $c, msg => $signed, h => $tp->{h}, level => $i };
        $q_global = $q_global * (2**$tp->{h}) + $q;
        $tree = $child if defined $child;
    }
    return (undef, "trailing bytes") if $off != $len;
    return (\@levels, $q_global);
}

# The global index of a signature that may be cut short (a process killed while writing it): the
# index is known once every level's q has been written. undef when it has not.
sub prefix_q {
    my ($self, $sig) = @_;
    return undef if length $sig < 8 || unpack('N', $sig) + 1 != $self->{L};
    my ($off, $tree, $q_global) = (4, $self->{top}, 0);
    for my $i (0 .. $self->{L} - 1) {
        my $tp = lms_params(unpack('N', $tree));
        my $op = ots_params(unpack('N', substr($tree, 4, 4)));
        return undef unless $tp && $op && $off + 4 <= length $sig;
        $q_global = $q_global * (2**$tp->{h}) + unpack('N', substr($sig, $off, 4));
        last if $i == $self->{L} - 1;
        $off += 8 + $op->{n} * (1 + $op->{p}) + 4 + $tp->{h} * $tp->{m};
        return undef if $off + 8 > length $sig;
        my $cp = lms_params(unpack('N', substr($sig, $off, 4))) or return undef;
        return undef if $off + 24 + $cp->{m} > length $sig;
        $tree = substr($sig, $off, 24 + $cp->{m});
        $off += 24 + $cp->{m};
    }
    return $q_global;
}

sub _verified {
    my ($self, $label, $sig, $msg) = @_;
    return 1 unless $self->{verify};
    my $k = sha256_hex($sig) . sha256_hex($msg);
    $self->{verified}{$k} //= $self->{verify}->($sig, $msg) ? 1 : 0;
    return $self->{verified}{$k};
}

sub add {
    my ($self, %o) = @_;
    my ($sig, $msg, $label) = ($o{sig}, $o{msg}, $o{label} // 'signature ' . ($self->{signatures} + $self->{rejected} + 1));
    my ($levels, $q) = $self->parse($sig, $msg);
    if (!$levels) { $self->{rejected}++; return { ok => 0, why => "malformed: $q" } }
    if ($self->{mode} eq 'all' && !$self->_verified($label, $sig, $msg)) {
        $self->{rejected}++;
        return { ok => 0, why => 'does not verify' };
    }
    my @found;
    for my $lv (@$levels) {
        my $key = unpack('H*', $lv->{tree}) . ':' . $lv->{q};
        my $digest = sha256_hex($lv->{c}) . sha256_hex($lv->{msg});
        my $old = $self->{seen}{$key};
        push @found, [$lv, $old] if $old && $old->{digest} ne $digest;
    }
    if (@found && $self->{mode} eq 'collisions') {
        if (!$self->_verified($label, $sig, $msg)) {
            $self->{rejected}++;
            return { ok => 0, why => 'does not verify' };
        }
        # Old signatures that do not verify are not counted either.
        @found = grep { $self->_verified($_->[1]{label}, $_->[1]{sig}, $_->[1]{fullmsg}) } @found;
    }
    for my $f (@found) {
        my ($lv, $old) = @$f;
        my $what = $lv->{level} < $self->{L} - 1 ? 'child public key' : 'message';
        my $how = sha256_hex($old->{msg}) eq sha256_hex($lv->{msg}) ? "the same $what with another randomizer C"
                                                                    : "two different ${what}s";
        push @{ $self->{reuses} }, sprintf('level %d tree %s q=%d signed %s: [%s] %s... and [%s] %s... (signature q %d)',
            $lv->{level}, substr(unpack('H*', $lv->{tree}), 0, 24) . '..', $lv->{q}, $how, $old->{label},
            substr(sha256_hex($old->{msg}), 0, 16), $label, substr(sha256_hex($lv->{msg}), 0, 16), $q);
    }
    for my $lv (@$levels) {
        my $key = unpack('H*', $lv->{tree}) . ':' . $lv->{q};
        $self->{seen}{$key} //= { digest => sha256_hex($lv->{c}) . sha256_hex($lv->{msg}), msg => $lv->{msg},
                                  label => $label, sig => $sig, fullmsg => $msg };
    }
    $self->{signatures}++;
    $self->{max_q} = $q if !defined $self->{max_q} || $q > $self->{max_q};
    return { ok => 1, q => $q, levels => [map { $_->{q} } @$levels] };
}

sub reuses { return @{ $_[0]{reuses} } }

sub summary {
    my ($self) = @_;
    return { signatures => $self->{signatures}, rejected => $self->{rejected}, pairs => scalar(keys %{ $self->{seen} }),
             reuses => scalar @{ $self->{reuses} }, max_q => $self->{max_q} };
}

sub summary_line {
    my ($self) = @_;
    my $s = $self->summary;
    return sprintf('ledger: signatures=%d rejected=%d pairs=%d reuses=%d max_q=%s', $s->{signatures}, $s->{rejected},
                   $s->{pairs}, $s->{reuses}, $s->{max_q} // '-');
}

1;
