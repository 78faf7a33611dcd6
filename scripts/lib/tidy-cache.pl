#!/usr/bin/perl
# The clang-tidy stage's memory of clean files (scripts/clang-tidy.sh): a file clang-tidy found
# nothing in is not checked again while nothing it sees has changed. The key of a file is the
# SHA-256 of the clang-tidy version, .clang-tidy, the file's name and compile command, and its
# preprocessed text with its comments (every header it includes, as the compiler reads them, and
# every NOLINT); the cache is a
# directory of empty files named by key (default ~/.cache/klms-tidy, KLMS_TIDY_CACHE).
#
#   tidy-cache.pl keys  ROOT BUILD REGEX JOBS TIDY   prints "<key> <file>" for each source of
#                                                    BUILD/compile_commands.json matching REGEX
#   tidy-cache.pl stale CACHE < keys                 the files whose key is not in CACHE
#   tidy-cache.pl store CACHE < keys                 records every key (after a clean run)
use strict;
use warnings;
use Digest::SHA;
use JSON::PP ();
use Text::ParseWords qw(shellwords);

my $mode = shift @ARGV // die "tidy-cache.pl keys|stale|store ...\n";
if ($mode eq 'stale' || $mode eq 'store') {
    my $cache = shift @ARGV // die "tidy-cache.pl $mode CACHE\n";
    if ($mode eq 'store') { mkdir $cache unless -d $cache }
    while (my $line = <STDIN>) {
        chomp $line;
        my ($key, $file) = split / /, $line, 2;
        if ($mode eq 'stale') { print "$file\n" unless $key ne '-' && -e "$cache/$key" }
        elsif ($key ne '-') { open my $fh, '>', "$cache/$key" or die "$cache/$key: $!\n"; close $fh }
    }
    exit 0;
}
die "tidy-cache.pl: unknown mode $mode\n" unless $mode eq 'keys';
my ($root, $build, $regex, $jobs, $tidy) = @ARGV;
open my $fh, '<', "$build/compile_commands.json" or die "$build/compile_commands.json: $!\n";
my $db = JSON::PP->new->decode(do { local $/; <$fh> });
my $common = Digest::SHA->new(256);
$common->add(scalar `"$tidy" --version`);
$common->addfile("$root/.clang-tidy");
my $prefix = $common->hexdigest;

my @entries = grep { $_->{file} =~ /$regex/ } @$db;
my %seen;
@entries = grep { !$seen{$_->{file}}++ } @entries;
# Preprocess $jobs files at a time; each child prints its line.
my @running;
for my $e (@entries) {
    if (@running >= $jobs) { waitpid(shift @running, 0) }
    my $pid = fork() // die "fork: $!\n";
    if ($pid == 0) {
        my @argv = shellwords($e->{command});
        my @pp;
        for (my $i = 0; $i < @argv; $i++) {
            if ($argv[$i] eq '-o' || $argv[$i] eq '-c') { $i++; next }
            push @pp, $argv[$i];
        }
        # A file that cannot be preprocessed gets no key ('-'): it is checked, never skipped.
        my $key = '-';
        if (chdir $e->{directory} and open my $cpp, '-|', @pp, '-E', '-P', '-C', '-w', $e->{file}) {
            my $sha = Digest::SHA->new(256);
            $sha->add($prefix, "\0", $e->{file} =~ s/^\Q$root\E//r, "\0", join(' ', @pp) =~ s/\Q$root\E//gr, "\0");
            $sha->addfile($cpp);
            $key = $sha->hexdigest if close $cpp;
        }
        print "$key $e->{file}\n";
        exit 0;
    }
    push @running, $pid;
}
waitpid($_, 0) for @running;
