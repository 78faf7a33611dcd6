#!/usr/bin/env perl
# Google Benchmark JSON (klms-hash-bench) -> one CSV row per benchmark and aggregate:
#   name,variant,aggregate,repetitions,real_ns,cpu_ns,ns_per_msg,ns_per_byte
# ns_per_msg / ns_per_byte come from the benchmark's counters (CPU time based). The variant is
# "sha-ni-masked" for files whose context has OPENSSL_ia32cap set, else "default".
#   perl hash_json_to_csv.pl hash.json [hash-masked.json ...] > hash.csv
use strict;
use warnings;
use JSON::PP;

print "name,variant,aggregate,repetitions,real_ns,cpu_ns,ns_per_msg,ns_per_byte\n";
for my $file (@ARGV) {
  next unless -s $file;
  open my $fh, '<', $file or die "$file: $!";
  local $/;
  my $doc = decode_json(<$fh>);
  my $cap = $doc->{context}{OPENSSL_ia32cap} // '(unset)';
  my $variant = $cap eq '(unset)' ? 'default' : 'sha-ni-masked';
  for my $b (@{ $doc->{benchmarks} }) {
    my $aggregate = $b->{aggregate_name} // 'single';
    next if $aggregate eq 'stddev' || $aggregate eq 'cv';
    my $scale = ($b->{time_unit} // 'ns') eq 'us' ? 1e3 : ($b->{time_unit} // 'ns') eq 'ms' ? 1e6 : 1;
    my $msg = defined $b->{'ns/msg'} ? sprintf('%.3f', $b->{'ns/msg'} * 1e9) : '';
    my $byte = defined $b->{'ns/byte'} ? sprintf('%.4f', $b->{'ns/byte'} * 1e9) : '';
    printf "%s,%s,%s,%d,%.3f,%.3f,%s,%s\n", $b->{run_name} // $b->{name}, $variant, $aggregate,
      $b->{repetitions} // 1, $b->{real_time} * $scale, $b->{cpu_time} * $scale, $msg, $byte;
  }
}
