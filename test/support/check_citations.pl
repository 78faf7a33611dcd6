#!/usr/bin/perl
# Checks that every citation in the tree points at something that exists (docs/development.md
# "Citations"). Usage: check_citations.pl [ROOT]  (default: the current directory).
# Prints one line per broken citation, FILE:LINE: what, and exits 1 if there is any, else 0.
#
# What it reads: every Markdown file (all of its text), and the comments of code files (.h, .hpp,
# .cpp, .c, .pl, .pm, .t, .sh, .cmake, CMakeLists.txt). What counts as a citation:
#   A. a repository path with a file extension, backticked or not: a token that starts with one of
#      the top-level folders of @kTopFolders and ends in a known extension, e.g. state/store.h,
#      docs/state.md, test/recipes/keys.t; "state/io.h/.cpp" names both files. A glob
#      (test/recipes/reuse_*.t) must match a file.
#   B. a backticked span that is nothing but such a path, of a file or a folder: `hashes/lsh/`.
#   C. a bare file name of code (no folder; .h .hpp .cpp .c .t .pm; a glob such as tdm_*_lanes.h
#      too) in a comment or document: some file of that name must exist in the tree, since such
#      names go stale when files move. Not read: names inside <...> (system headers), names right
#      after a folder that is not ours (openssl/pem.h), and the other projects' files of
#      @kForeignNames that documents cite.
#   D. a page and invariant numbers, docs/state.md §7 (also "§4, §7", "§1–§17"): the page has a
#      heading "### §7 ...".
#   E. a page and a heading in double quotes, docs/design.md "Encodings" (also README.md "Errors",
#      README, "Errors"; the quoted text may continue on the next comment line): the page has a
#      heading of exactly that text, Markdown backticks ignored; for an invariant heading
#      "§15 One process, one owner" its text after the number counts too.
#   F. Markdown links in .md files, [text](path), [text](path#anchor), [text](#anchor): the path
#      exists relative to the page, and the anchor is a GitHub heading anchor of the target page
#      (lowercase; punctuation but - and _ dropped; spaces to -; a repeated one gets -1, -2) or an
#      explicit <a name="..."> or id="..." in it. Links with a scheme (https:, mailto:) are not read.
# Not read: the records of %kRecords (a report a script wrote at the commit it names).
use strict;
use warnings;
use utf8;
use File::Find;
use File::Basename qw(dirname basename);
use File::Spec;

my @kTopFolders = qw(base bench cmake conf debian docs examples hashes lms man provider scripts state
                     test tools witness xmss);
my $kTop = join '|', @kTopFolders;
my $kExt = qr/(?:h|hpp|cpp|c|md|t|pl|pm|sh|cmake|txt|json|cnf|in|map|gp|csv|scd|py|rules|install)/;
my $kCodeExt = qr/(?:h|hpp|cpp|c|t|pm)/;
# Other projects' files that documents name by their bare names (KISA's reference package;
# cisco/hash-sigs and the recording kit of test/data/SOURCES.md "Recording kit (outside the tree)").
my %kForeignNames = map { $_ => 1 } qw(example_simd.c lea_vs.c hash.h sha256.h fips202.h hss_verify.h
                                       ext_hash.cpp klms_vectors.c check_tdm.cpp record_digests.cpp);
# Records of one run, made by a script at the commit they name: their paths are that commit's.
my %kRecords = map { $_ => 1 } qw(docs/study/report.md);

my $root = shift // '.';
$root =~ s{/+$}{};

my @files = tree_files($root);
my %exists = map { $_ => 1 } @files;
my %dirs;
for my $f (@files) {
  my $d = $f;
  while ($d =~ s{/[^/]+$}{}) { $dirs{$d} = 1 }
}
my %basenames = map { basename($_) => 1 } @files;
my (%heading_cache, @broken);

for my $file (@files) {
  next if $kRecords{$file};
  if ($file =~ /\.md$/) { check_text($file, markdown_text("$root/$file"), 1) }
  elsif (is_code($file)) { check_text($file, comment_text("$root/$file", $file), 0) }
}
binmode STDOUT, ':encoding(UTF-8)';
my %printed;
print "$_\n" for grep { !$printed{$_}++ } @broken;
exit(@broken ? 1 : 0);

# The files of the tree: git's list when ROOT is a checkout (tracked and new, not ignored), else
# every file but build and package outputs.
sub tree_files {
  my ($top) = @_;
  if (-e "$top/.git") {
    my @list = `git -C '$top' ls-files --cached --others --exclude-standard 2>/dev/null`;
    if ($? == 0) {
      chomp @list;
      return grep { -f "$top/$_" } @list;
    }
  }
  my @list;
  find({ no_chdir => 1, wanted => sub {
    my $rel = File::Spec->abs2rel($File::Find::name, $top);
    if (-d $_ && $rel ne '.' && $rel =~ m{(?:^|/)(?:\.[^/]*|build[^/]*|dist|obj-[^/]*)$}) {
      $File::Find::prune = 1;
      return;
    }
    push @list, $rel if -f $_;
  } }, $top);
  return sort @list;
}

sub is_code {
  my ($f) = @_;
  return $f =~ /\.(?:h|hpp|cpp|c|pl|pm|t|sh|cmake)$/ || basename($f) eq 'CMakeLists.txt';
}

sub slurp {
  my ($path) = @_;
  open my $fh, '<:encoding(UTF-8)', $path or die "$path: $!\n";
  local $/;
  my $text = <$fh>;
  return $text;
}

# A Markdown file is read whole. Returns the text with line numbers intact.
sub markdown_text { return slurp($_[0]) }

# The comments of a code file, everything else blanked (newlines kept, so line numbers hold).
sub comment_text {
  my ($path, $name) = @_;
  my $text = slurp($path);
  my $out = '';
  if ($name =~ /\.(?:h|hpp|cpp|c)$/) {
    # States: code, // comment, /* comment */, "string", 'char'.
    my $state = 'code';
    my @c = split //, $text;
    for (my $i = 0; $i < @c; $i++) {
      my ($ch, $next) = ($c[$i], $c[$i + 1] // '');
      if ($state eq 'code') {
        if ($ch eq '/' && $next eq '/') { $state = 'line'; $out .= '  '; $i++; next }
        if ($ch eq '/' && $next eq '*') { $state = 'block'; $out .= '  '; $i++; next }
        if ($ch eq '"') { $state = 'str' } elsif ($ch eq "'") { $state = 'chr' }
        $out .= $ch eq "\n" ? "\n" : ' ';
      } elsif ($state eq 'line') {
        if ($ch eq "\n") { $state = 'code' }
        $out .= $ch;
      } elsif ($state eq 'block') {
        if ($ch eq '*' && $next eq '/') { $state = 'code'; $out .= '  '; $i++; next }
        $out .= $ch;
      } else {  # string or character literal
        if ($ch eq '\\') { $out .= '  '; $i++; next }
        if (($state eq 'str' && $ch eq '"') || ($state eq 'chr' && $ch eq "'") || $ch eq "\n") { $state = 'code' }
        $out .= $ch eq "\n" ? "\n" : ' ';
      }
    }
    # Comment markers of continued lines (" * ", "// ") are left; they are not word characters.
    return $out;
  }
  # '#' comments: from a '#' that starts the line or follows a blank, to the end of the line.
  for my $line (split /\n/, $text, -1) {
    if ($line =~ /^(.*?(?:^|\s))#(?![!{])(.*)$/) {
      $out .= (' ' x (length($1) + 1)) . $2 . "\n";
    } else {
      $out .= "\n";
    }
  }
  chop $out;
  return $out;
}

sub line_of {
  my ($text, $pos) = @_;
  return 1 + (substr($text, 0, $pos) =~ tr/\n//);
}

sub broken {
  my ($file, $text, $pos, $what) = @_;
  push @broken, "$file:" . line_of($text, $pos) . ": $what";
}

sub path_exists {
  my ($p) = @_;
  $p =~ s{/+$}{};
  return 1 if $exists{$p} || $dirs{$p};
  if ($p =~ /[*?]/) {
    (my $re = quotemeta $p) =~ s/\\\*/[^\/]*/g;
    $re =~ s/\\\?/[^\/]/g;
    return scalar grep { /^$re$/ } keys %exists, keys %dirs;
  }
  return 0;
}

# Headings of a Markdown page: their texts and their GitHub anchors (with explicit anchors).
sub headings {
  my ($page) = @_;
  return $heading_cache{$page} if $heading_cache{$page};
  my (%text, %anchor, %seen);
  my $in_fence = 0;
  for my $line (split /\n/, slurp("$root/$page")) {
    if ($line =~ /^\s*(```|~~~)/) { $in_fence = !$in_fence; next }
    next if $in_fence;
    while ($line =~ /<a\s+(?:name|id)="([^"]+)"/g) { $anchor{$1} = 1 }
    next unless $line =~ /^#{1,6}\s+(.*?)\s*#*\s*$/;
    my $h = $1;
    (my $plain = $h) =~ s/`//g;
    $text{$plain} = 1;
    $text{$1} = 1 if $plain =~ /^§\d+\s+(.*)$/;
    my $slug = lc $plain;
    $slug =~ s/<[^>]*>//g;
    $slug =~ s/\[([^\]]*)\]\([^)]*\)/$1/g;
    $slug =~ s/[^\p{L}\p{M}\p{N}\p{Pc} -]//g;
    $slug =~ s/ /-/g;
    my $n = $seen{$slug}++;
    $anchor{$n ? "$slug-$n" : $slug} = 1;
  }
  return $heading_cache{$page} = { text => \%text, anchor => \%anchor };
}

sub check_text {
  my ($file, $text, $is_md) = @_;

  # A: repository paths with an extension.
  while ($text =~ m{(?<![\w./\$\{-])((?:$kTop)/[\w./*+-]*\.$kExt)(?![\w/*-])}g) {
    my ($p, $pos) = ($1, $-[1]);
    next if $p =~ m{/\.\.?/};
    my @paths = ($p);
    @paths = ("$1.$2", "$1.$3") if $p =~ m{^(.*)\.(\w+)/\.(\w+)$};
    for my $one (@paths) {
      broken($file, $text, $pos, "no such file: $one") unless path_exists($one);
    }
  }
  # B: backticked folder paths (files are covered by A).
  while ($text =~ m{`((?:$kTop)/[\w./*+-]*)`}g) {
    my ($p, $pos) = ($1, $-[1]);
    next if $p =~ /\.$kExt$/;
    broken($file, $text, $pos, "no such file or folder: $p") unless path_exists($p);
  }
  # C: bare names of code files.
  while ($text =~ m{(?<![\w./<\$\{*-])([A-Za-z][\w*+-]*\.$kCodeExt)(?![\w/>*-])}g) {
    my ($name, $pos) = ($1, $-[1]);
    next if $kForeignNames{$name};
    my $found = $basenames{$name};
    if (!$found && $name =~ /\*/) {
      (my $re = quotemeta $name) =~ s/\\\*/.*/g;
      $found = grep { /^$re$/ } keys %basenames;
    }
    broken($file, $text, $pos, "no file named $name in the tree") unless $found;
  }
  # D: a page and its invariant numbers.
  while ($text =~ m{((?:docs/[\w/.-]+|README)\.md)((?:(?:\s*,\s*|\s+and\s+|\s*[–-]\s*|\s+)§\d+)+)}g) {
    my ($page, $refs, $pos) = ($1, $2, $-[1]);
    next unless $exists{$page};
    my $h = headings($page);
    for my $n ($refs =~ /§(\d+)/g) {
      my $found = grep { /^§\Q$n\E(?:\s|$)/ } keys %{ $h->{text} };
      broken($file, $text, $pos, "$page has no heading \"### §$n\"") unless $found;
    }
  }
  # E: a page and a quoted heading.
  while ($text =~ m{((?:docs/[\w/.-]+\.md)|README(?:\.md)?),?[ \t]*\n?[ \t/#*]*["“]([^"”\n]+(?:\n[ \t/#*]*[^"”\n]+)?)["”]}g) {
    my ($page, $heading, $pos) = ($1, $2, $-[1]);
    $page = 'README.md' if $page eq 'README';
    $heading =~ s/\n[ \t\/#*]*/ /g;
    $heading =~ s/`//g;
    next unless $exists{$page};
    broken($file, $text, $pos, "$page has no heading \"$heading\"")
      unless headings($page)->{text}{$heading};
  }
  return unless $is_md;
  # F: Markdown links (outside fenced code).
  my $dir = dirname($file);
  $dir = '' if $dir eq '.';
  while ($text =~ m{\[[^\]\n]*\]\(([^)\s]*)\)}g) {
    my ($target, $pos) = ($1, $-[1]);
    next if $target =~ /^[a-z][a-z0-9+.-]*:/i;
    my ($path, $anchor) = $target =~ /^([^#]*)(?:#(.*))?$/;
    my $page = $file;
    if ($path ne '') {
      $page = File::Spec->canonpath($dir eq '' ? $path : "$dir/$path");
      1 while $page =~ s{(^|/)(?!\.\.(?:/|$))[^/]+/\.\.(?:/|$)}{$1};
      unless (path_exists($page)) {
        broken($file, $text, $pos, "no such file: $page");
        next;
      }
    }
    next unless defined $anchor && $anchor ne '';
    if ($page !~ /\.md$/ || !$exists{$page}) {
      broken($file, $text, $pos, "anchor into a page that has no headings: $target");
      next;
    }
    broken($file, $text, $pos, "$page has no heading with the anchor #$anchor")
      unless headings($page)->{anchor}{$anchor};
  }
}
