# For the recipes that test a checker of the source tree (citations.t, layering.t): write a small
# tree of files, run the checker on a tree, and read what it reports.
package TreeChecker;
use strict;
use warnings;
use File::Path qw(make_path);
use File::Basename qw(dirname);
use Exporter 'import';
our @EXPORT_OK = qw(write_file run_checker);

# Writes `text` to `path` as UTF-8, making its folders.
sub write_file {
  my ($path, $text) = @_;
  make_path(dirname($path));
  open my $fh, '>:encoding(UTF-8)', $path or die "$path: $!\n";
  print $fh $text;
  close $fh or die "$path: $!\n";
}

# Runs the Perl checker `checker` on `root`: its exit status, then its report lines.
sub run_checker {
  my ($checker, $root) = @_;
  my @out = `perl '$checker' '$root'`;
  my $status = $? >> 8;
  chomp @out;
  return ($status, @out);
}

1;
