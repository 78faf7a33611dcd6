# K-LMS vs K-XMSS for report.pl: reads xmss.csv and xmss-profile.csv (klms-bench
# --xmss-compare, merged by bench/study.sh) and returns the findings-table row, the report section
# and the plot data (plot-data/xmss-ratio.dat for bench/plots/xmss-vs-lms.gp).
#   require 'report_xmss.pl'; my $x = XmssReport::build($dir, $plot_dir, \&read_csv);
# Ratios use the CPU-time medians (cpu_median_us): on a shared machine wall time includes other
# processes' turns, CPU time does not.
package XmssReport;
use strict;
use warnings;
use List::Util qw(first min max sum);

my $PAPER = '3.3–3.9×';

sub fx { my ($v, $d) = @_; return defined $v ? sprintf('%.' . ($d // 2) . 'f×', $v) : '–'; }
sub ratio { my ($a, $b) = @_; return (defined $a && defined $b && $a ne '' && $b ne '' && $b > 0) ? $a / $b : undef; }
sub us {
  my ($v) = @_;
  return '–' unless defined $v && $v ne '';
  return $v >= 1e6 ? sprintf('%.2f s', $v / 1e6) : $v >= 1e3 ? sprintf('%.2f ms', $v / 1e3) : sprintf('%.1f µs', $v);
}
sub cnt { my ($v) = @_; return defined $v && $v ne '' ? sprintf('%.0f', $v) : '–'; }
sub spread {
  my ($r) = @_;
  return '–' unless $r && defined $r->{cpu_median_us} && $r->{cpu_median_us} ne '';
  return us($r->{cpu_median_us}) . ' [' . us($r->{cpu_p10_us}) . '–' . us($r->{cpu_p90_us}) . ']';
}
sub wnames { my ($lw) = @_; return "LMS W$lw / XMSS w=" . (1 << $lw); }

# What each input length is, per scheme (n = 32; the 16-byte prefix included).
sub role {
  my ($scheme, $len, $log_w) = @_;
  if ($scheme eq 'LMS') {
    my %p = (1 => 265, 2 => 133, 4 => 67, 8 => 34);
    return 'chain step, PRF x[i] (one block)' if $len == 55;
    return 'leaf' if $len == 54;
    return 'interior node' if $len == 86;
    return 'public key K = H(all chain ends)' if $p{$log_w} && $len == 22 + $p{$log_w} * 32;
    return 'message hash (1 KiB)' if $len == 16 + 6 + 32 + 1024;
    return '';
  }
  return 'PRF (chain key, chain bitmask, tree masks, r) and F (chain step)' if $len == 96;
  return 'H (L-tree and tree nodes) and PRF_keygen (private elements)' if $len == 128;
  return 'H_msg (1 KiB message)' if $len == 32 + 96 + 1024;
  return '';
}

sub build {
  my ($dir, $plot_dir, $read_csv) = @_;
  my @rows = $read_csv->("$dir/xmss.csv");
  my @prof = $read_csv->("$dir/xmss-profile.csv");
  my %res = (findings => [], section => [], plots => []);
  my @md;
  my $out = sub { push @md, @_ ? join('', @_) : ''; };
  my $table = sub {
    my ($head, @r) = @_;
    $out->('| ' . join(' | ', @$head) . ' |');
    $out->('|' . join('|', map { '---' } @$head) . '|');
    $out->('| ' . join(' | ', map { defined $_ ? $_ : '–' } @$_) . ' |') for @r;
    $out->();
  };
  $out->('## K-LMS vs K-XMSS, identical LSH-256 code');
  $out->();
  unless (@rows) {
    $out->('Not measured in this run (no xmss.csv: `klms-bench --xmss-compare`).');
    $out->();
    $res{section} = \@md;
    push @{ $res{findings} }, ['K-LMS vs K-XMSS, identical LSH-256 code', $PAPER, 'not measured in this run', '–', ''];
    return \%res;
  }

  my $get = sub {
    my (%w) = @_;
    return first { my $r = $_; !grep { ($r->{$_} // '') ne $w{$_} } keys %w } @rows;
  };
  my @hs = sort { $a <=> $b } keys %{ { map { $_->{h} => 1 } @rows } };
  my $h0 = (first { $_ >= 10 } @hs) // $hs[0];
  my @lws = sort { ($a == 4 ? -1 : $a) <=> ($b == 4 ? -1 : $b) } keys %{ { map { $_->{log_w} => 1 } @rows } };
  my @ops = qw(keygen sign verify);
  # (time ratio, hash ratio, block ratio, lms row, xmss row) of one op.
  my $cmp = sub {
    my ($series, $backend, $h, $lw, $op) = @_;
    my %q = (series => $series, backend => $backend, h => $h, log_w => $lw, op => $op);
    my $l = $get->(%q, scheme => 'LMS');
    my $x = $get->(%q, scheme => 'XMSS');
    return unless $l && $x;
    return (ratio($x->{cpu_median_us}, $l->{cpu_median_us}), ratio($x->{hashes_per_op}, $l->{hashes_per_op}),
            ratio($x->{blocks_per_op}, $l->{blocks_per_op}), $l, $x);
  };

  my $head_backend = 'lsh256-simd';
  my %head = map { my $op = $_; $op => [$cmp->('many-message', $head_backend, $h0, 4, $op)] } @ops;
  my %serial = map { my $op = $_; $op => [$cmp->('one-message', 'lsh256-serial', $h0, 4, $op)] } @ops;

  # --- the findings row
  {
    my @t = grep { defined } map { $head{$_}[0] } @ops;
    my $text = @t
      ? join(', ', map { "$_ " . fx($head{$_}[0]) } @ops) . " (XMSS / LMS time, CPU medians, h = $h0, " . wnames(4) .
        ', 1 KiB, both on hash_many); hash calls ' . join(' / ', map { fx($head{$_}[1]) } @ops) .
        (defined $serial{sign}[0] ? '; one-message series (lsh256-serial): ' . join(', ', map { "$_ " . fx($serial{$_}[0]) } @ops) : '')
      : 'not measured (no lsh256-simd W4 rows)';
    my $agree = !@t ? '–'
      : (min(@t) >= 3.3 * 0.9 && max(@t) <= 3.9 * 1.1) ? 'yes'
      : (min(@t) >= 2.5 && max(@t) <= 5) ? 'close: ' . fx(min(@t)) . '–' . fx(max(@t))
      : 'no';
    my ($lk, $xk) = ($head{keygen}[3], $head{keygen}[4]);
    my $why = 'A WOTS+ chain step is three hashes — PRF for the key, PRF for the bitmask, then F, 96 bytes each, one LSH-256 block — where an LM-OTS step is one (55 bytes, one block); '
      . 'each XMSS leaf adds an L-tree of len − 1 tree hashes (3 PRF + one 128-byte H = 5 blocks each) where LMS hashes one long K. '
      . ($lk && $xk && $lk->{hashes_per_op} ne '' ? sprintf('Counted: key generation %s against %s hashes (%s against %s blocks, %s). ', cnt($xk->{hashes_per_op}), cnt($lk->{hashes_per_op}), cnt($xk->{blocks_per_op}), cnt($lk->{blocks_per_op}), fx($head{keygen}[2])) : '')
      . 'The time ratio is above the block ratio by the XMSS engine\'s extra work per hash (masks XORed in, addresses serialized, every input built fresh instead of hashed in place). Both schemes here use the same backend functions, lanes included; see the section below.';
    push @{ $res{findings} }, ['K-LMS vs K-XMSS, identical LSH-256 code', $PAPER, $text, $agree, $why];
  }

  # --- section text
  $out->('Both schemes run on the same backend table, through the same hash functions (`hash_many` / `hash_one` / ',
         'streaming) and the same lanes: `xmss/` gives every XMSS hash, H(toByte(x, 32) ‖ KEY ‖ M), to the backend with ',
         'its 16 zero bytes as the fixed prefix, and batches its calls per chain step (two PRFs and one F for every active chain ',
         'of 8 leaves) and per tree level, as the LMS engine batches its chain steps. Key generation is the whole tree on one ',
         'thread, in memory (no state or cache file for either scheme); signing is from the in-memory tree (r / C and the ',
         'message hash included); 1 KiB messages. ', wnames(4), ': both sign 4-bit digits — 67 chains of 15 steps at n = 32 — ',
         'so they are the same Winternitz setting, as are W2 / w = 4 and W8 / w = 256 (the other w both schemes have; ',
         'RFC 8391 itself names only w = 16). Times are CPU-time medians [p10–p90] (the machine is shared); ratios are ',
         'XMSS / LMS. Hash calls are counted per operation by the counting wrapper backend (signing and verification ',
         'averaged over 32 indices); blocks are the compression-function calls those inputs cost (LSH-256: 128-byte blocks).');
  $out->();
  my $ratio_table = sub {
    my ($series, $backend, $h, $title) = @_;
    my @t;
    for my $lw (@lws) {
      for my $op (@ops) {
        my ($tr, $hr, $br, $l, $x) = $cmp->($series, $backend, $h, $lw, $op);
        next unless $l;
        push @t, [wnames($lw), $op, spread($l), spread($x), '**' . fx($tr) . '**', cnt($l->{hashes_per_op}), cnt($x->{hashes_per_op}), fx($hr),
                  cnt($l->{blocks_per_op}), cnt($x->{blocks_per_op}), fx($br)];
      }
    }
    return unless @t;
    $out->($title);
    $out->();
    $table->(['digits', 'op', 'LMS', 'XMSS', 'time ratio', 'LMS hashes', 'XMSS hashes', 'hash ratio', 'LMS blocks', 'XMSS blocks', 'block ratio'], @t);
  };
  $ratio_table->('many-message', $head_backend, $h0,
    "### LSH-256 (lsh256-simd), h = $h0, many-message hashing on both sides");
  $ratio_table->('one-message', 'lsh256-serial', $h0,
    "### One-message series: the same LSH-256 code one message per call (lsh256-serial), h = $h0, both schemes");

  # Other backends at W4.
  {
    my @t;
    my @others = grep { $_ ne $head_backend && $_ ne 'lsh256-serial' } sort keys %{ { map { $_->{backend} => 1 } @rows } };
    for my $b (@others) {
      my @c = map { [$cmp->('many-message', $b, $h0, 4, $_)] } @ops;
      next unless $c[0][3];
      push @t, [$b, "$c[0][3]{params} vs $c[0][4]{params}", map({ fx($_->[0]) . ' (hashes ' . fx($_->[1]) . ', blocks ' . fx($_->[2]) . ')' } @c)];
    }
    if (@t) {
      $out->("### Other backends, h = $h0, " . wnames(4) . ': time ratio (hash-call ratio, block ratio)');
      $out->();
      $out->('The hash-call ratio is the same on every backend (same engines); the block ratio is not: a 96-byte ',
             'XMSS input is one LSH-256 block but two SHA-256 blocks (64-byte blocks, 9 bytes of padding) and six or seven ',
             'Tandem-DM blocks, against one SHA-256 block for the 55-byte LMS step. So the paper\'s ratio is specific to ',
             'LSH-256\'s 128-byte block; on SHA-256 XMSS pays about twice as much again.');
      $out->();
      $table->(['backend', 'sets', 'keygen', 'sign', 'verify'], @t);
    }
  }
  # Heights.
  if (@hs > 1) {
    my @t;
    for my $h (@hs) {
      for my $lw (@lws) {
        my @c = map { [$cmp->('many-message', $head_backend, $h, $lw, $_)] } @ops;
        next unless $c[0][3];
        push @t, [$h, wnames($lw), map({ my $x = $_; defined $x->[3] ? us($x->[3]{cpu_median_us}) . ' / ' . us($x->[4]{cpu_median_us}) . ' = **' . fx($x->[0]) . '**' : '–' } @c)];
      }
    }
    $out->("### By tree height ($head_backend): LMS / XMSS = ratio");
    $out->();
    $table->(['h', 'digits', 'keygen', 'sign', 'verify'], @t);
  }
  # Hash calls by input length.
  {
    my @p = grep { $_->{backend} eq $head_backend && $_->{series} eq 'many-message' && $_->{h} == $h0 && $_->{log_w} == 4 } @prof;
    if (@p) {
      my %agg;
      for my $r (@p) { $agg{"$r->{scheme}|$r->{op}|$r->{input_bytes}"}{hashes} += $r->{hashes_per_op}; $agg{"$r->{scheme}|$r->{op}|$r->{input_bytes}"}{blocks} = $r->{blocks_per_hash}; $agg{"$r->{scheme}|$r->{op}|$r->{input_bytes}"}{paths}{$r->{path}} = 1; }
      my @t;
      my %order = (keygen => 0, sign => 1, verify => 2);
      for my $k (sort { my @a = split /\|/, $a; my @b = split /\|/, $b; $order{$a[1]} <=> $order{$b[1]} || $a[0] cmp $b[0] || $a[2] <=> $b[2] } keys %agg) {
        my ($scheme, $op, $len) = split /\|/, $k;
        push @t, [$op, $scheme, "$len B", role($scheme, $len, 4), join('+', sort keys %{ $agg{$k}{paths} }), sprintf('%.1f', $agg{$k}{hashes}), $agg{$k}{blocks}];
      }
      $out->("### Hash calls per operation by input length ($head_backend, h = $h0, " . wnames(4) . ')');
      $out->();
      $out->('Input lengths include the 16-byte prefix (LMS: I; XMSS: the first 16 bytes of toByte(x, 32)). The ',
             '96-byte XMSS inputs are the three calls of every chain step (two PRFs and F) and the three PRFs of ',
             'every tree hash; the 128-byte ones are the tree hashes themselves and the private elements.');
      $out->();
      $table->(['op', 'scheme', 'input', 'what', 'path', 'hashes/op', 'blocks each'], @t);
    }
  }
  # Sizes.
  {
    my @t;
    for my $lw (@lws) {
      for my $scheme (qw(LMS XMSS)) {
        my $pk = $get->(series => 'many-message', backend => $head_backend, h => $h0, log_w => $lw, scheme => $scheme, op => 'size:public-key');
        my $sg = $get->(series => 'many-message', backend => $head_backend, h => $h0, log_w => $lw, scheme => $scheme, op => 'size:signature');
        push @t, [$scheme, $pk ? $pk->{params} : '–', wnames($lw), $pk ? "$pk->{bytes} B" : '–', $sg ? "$sg->{bytes} B" : '–'] if $pk;
      }
    }
    if (@t) {
      $out->("### Sizes (h = $h0)");
      $out->();
      $out->('An LMS public key here is the single-tree key (u32 type ‖ u32 otstype ‖ I ‖ root; HSS adds u32 L); an XMSS ',
             'public key is u32 oid ‖ root ‖ SEED. Signatures differ by LMS\'s two type codes against XMSS\'s none.');
      $out->();
      $table->(['scheme', 'set', 'digits', 'public key', 'signature'], @t);
    }
  }
  # Why.
  {
    my ($l, $x) = ($head{sign}[3], $head{sign}[4]);
    my ($lv, $xv) = ($head{verify}[3], $head{verify}[4]);
    $out->('### Why the ratio is what it is');
    $out->();
    $out->('- **Per chain step: 3 hashes against 1.** LM-OTS hashes I ‖ q ‖ i ‖ j ‖ tmp (55 bytes) once per step; WOTS+ ',
           'first derives the step\'s key and bitmask with two PRF calls on (SEED, ADRS) and then hashes F(key, tmp ⊕ bitmask). ',
           'All three are single LSH-256 blocks, so the chains alone cost exactly 3× the blocks. This is the paper\'s explanation ',
           'and it holds here call for call.');
    $out->('- **Per leaf: the L-tree.** Where LMS compresses the 67 chain ends with one 2166-byte hash (17 blocks), XMSS runs ',
           'an L-tree of 66 tree hashes, each 3 PRFs plus one 128-byte H (2 blocks): 330 blocks. Per tree node the same: LMS 1 ',
           'block, XMSS 5. This lifts verification (' . fx($head{verify}[2]) . ' in blocks) above signing (' . fx($head{sign}[2]) . '), where the ',
           'chains dominate and the message hash and private-element derivation (2 blocks each in XMSS, PRF_keygen is 128 bytes) are a small share.');
    $out->('- **Key generation** walks every chain to the top: ' . fx($head{keygen}[1]) . ' the hash calls, ' . fx($head{keygen}[2]) . ' the blocks.') if defined $head{keygen}[1];
    {
      my ($tr, $hr) = $cmp->('many-message', $head_backend, $h0, 2, 'verify');
      my ($str, $shr) = $cmp->('many-message', $head_backend, $h0, 2, 'sign');
      $out->('- **Other w.** At W2 / w = 4 the chains are short (3 steps) and there are 133 of them, so the L-tree (132 tree ',
             'hashes, 4 calls each) weighs more: verification ' . fx($hr) . ' the calls, signing only ' . fx($shr) .
             ' (the signer has the tree; it hashes chains and the private elements only). At W8 / w = 256 the chains (255 steps) ',
             'dominate everything and every ratio tends to the chain step\'s 3×.') if defined $hr;
    }
    $out->('- **Time over blocks.** The measured time ratio (' . join(', ', map { "$_ " . fx($head{$_}[0]) } @ops) . ') is ' .
           'the block ratio times the XMSS engine\'s extra work per hash: each of its inputs is built fresh (padding, SEED or key, ',
           'a serialized address, a masked message) where the LMS chain hashes its buffer in place and rewrites one byte per step. ',
           'With 8- or 16-lane hashing the hash itself is cheap enough (tens of ns) for that bookkeeping to show.');
    $out->('- **Like for like.** The one-message series (lsh256-serial, same LSH-256 code, one message per call, both schemes) ' .
           'gives ' . join(', ', map { "$_ " . fx($serial{$_}[0]) } @ops) . '; the paper\'s own implementations presumably hashed one message at a time.')
      if defined $serial{sign}[0];
    $out->();
  }

  # Plot data: time, hash-call and block ratios per op and w (lsh256-simd, h0).
  open my $fh, '>', "$plot_dir/xmss-ratio.dat" or die "$plot_dir/xmss-ratio.dat: $!";
  print $fh "label time hashes blocks serial_time\n";
  for my $lw (@lws) {
    for my $op (@ops) {
      my ($tr, $hr, $br) = $cmp->('many-message', $head_backend, $h0, $lw, $op);
      next unless defined $tr;
      my ($st) = $cmp->('one-message', 'lsh256-serial', $h0, $lw, $op);
      printf $fh "\"%s W%d/w%d\" %s %s %s %s\n", $op, $lw, 1 << $lw, map { defined $_ ? sprintf('%.3f', $_) : 'NaN' } ($tr, $hr, $br, $st);
    }
  }
  close $fh;
  push @{ $res{plots} }, ['xmss-vs-lms.png', "K-XMSS / K-LMS on identical LSH-256 code (h = $h0): time, hash-call and block ratios against the paper's 3.3–3.9×"];
  $res{section} = \@md;
  return \%res;
}

1;
