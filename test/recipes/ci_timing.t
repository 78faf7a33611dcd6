# The time table counts what CTest ran as CTest ran it (docs/development.md "Running the tests"):
# a real ctest over a small generated project with one test of every ending CTest logs (passed,
# failed, skipped through SKIP_RETURN_CODE, a recipe skipped as a whole through the real driver,
# passed and failed by PASS_REGULAR_EXPRESSION, failed by FAIL_REGULAR_EXPRESSION), then
# scripts/ci-timing.sh over what it wrote. Before this recipe the table read only CTest's log, where
# CMake 3.25 writes "Test Passed." for a skipped test and "Test Pass Reason:" for a test passed by
# its regular expression: whole skips counted as passes (the sanitizer stage's skipped
# recipe_provider_load), and the regex test not at all (the cold run's release stage: 85 of 86).
use strict;
use warnings;
use File::Temp qw(tempdir);
use Test::More;

my $src = $ENV{KLMS_SOURCE_DIR} or die "KLMS_SOURCE_DIR is not set\n";
my $dir = tempdir(CLEANUP => 1);

# A recipe that skips as a whole, run through the real CTest driver (which records the skip).
my $recipe_dir = "$dir/recipes";
mkdir $recipe_dir or die "$recipe_dir: $!\n";
open my $rf, '>', "$recipe_dir/skipper.t" or die "$recipe_dir/skipper.t: $!\n";
print $rf "use Test::More; plan skip_all => 'timing probe: nothing to do here';\n";
close $rf;
open my $pf, '>', "$dir/skip-policy.txt" or die "$dir/skip-policy.txt: $!\n";
print $pf "allow timing probe\n";
close $pf;
my $driver = "$src/test/support/ctest_driver.pl";

open my $fh, '>', "$dir/CMakeLists.txt" or die "$dir/CMakeLists.txt: $!\n";
print $fh <<"CMAKE";
cmake_minimum_required(VERSION 3.20)
project(timing_probe NONE)
enable_testing()
add_test(NAME passes COMMAND sh -c "exit 0")
add_test(NAME fails COMMAND sh -c "exit 1")
add_test(NAME skips COMMAND sh -c "exit 77")
set_tests_properties(skips PROPERTIES SKIP_RETURN_CODE 77)
add_test(NAME recipe_skipper COMMAND perl $driver --name recipe_skipper --record \${PROJECT_BINARY_DIR}/Testing/klms-skips --policy $dir/skip-policy.txt tap $recipe_dir/skipper.t)
set_tests_properties(recipe_skipper PROPERTIES SKIP_RETURN_CODE 77)
add_test(NAME passes_by_regex COMMAND sh -c "echo path-table row")
set_tests_properties(passes_by_regex PROPERTIES PASS_REGULAR_EXPRESSION "path-table row")
add_test(NAME fails_by_missing_regex COMMAND sh -c "echo nothing")
set_tests_properties(fails_by_missing_regex PROPERTIES PASS_REGULAR_EXPRESSION "path-table row")
add_test(NAME fails_by_fail_regex COMMAND sh -c "echo boom")
set_tests_properties(fails_by_fail_regex PROPERTIES FAIL_REGULAR_EXPRESSION "boom")
CMAKE
close $fh;

my $build = "$dir/build";
is(system("cmake -S '$dir' -B '$build' >/dev/null 2>&1"), 0, 'the probe project configures');

sub table {
    my ($label) = @_;
    open my $st, '>', "$dir/stages.tsv" or die "$dir/stages.tsv: $!\n";
    print $st "probe: tests\t7\tFAILED\t$build\n";
    close $st;
    my $out = `'$src/scripts/ci-timing.sh' --stages '$dir/stages.tsv' --total 7 2>&1`;
    is($? >> 8, 0, "$label: ci-timing.sh exits 0") or diag($out);
    like($out, qr/probe: tests\s+0:00:07\s+FAILED\s+\(7 tests: 2 passed, 2 skipped, 3 failed\)/,
         "$label: 7 tests, 2 passed (one by its regular expression), 2 skipped, 3 failed") or diag($out);
    for my $t (qw(passes passes_by_regex)) {
        like($out, qr/^\s+[\d.]+\s+\S+\s+\Q$t\E\s+Passed$/m, "$label: $t is listed as Passed");
    }
    for my $t (qw(fails fails_by_missing_regex fails_by_fail_regex)) {
        like($out, qr/^\s+[\d.]+\s+\S+\s+\Q$t\E\s+Failed$/m, "$label: $t is listed as Failed");
    }
    for my $t (qw(skips recipe_skipper)) {
        like($out, qr/^\s+[\d.]+\s+\S+\s+\Q$t\E\s+Skipped$/m, "$label: $t is listed as Skipped");
    }
    like($out, qr/^\s+\S+\s+recipe_skipper\s+all\s+allow\s+timing probe: nothing to do here$/m,
         "$label: the driver's record of the whole skip is listed with its reason") or diag($out);
    like($out, qr/^\s+total\s+0:00:07$/m, "$label: the total line");
}

# As scripts/test.sh runs ctest: with its JUnit file, which names the skips.
system("cd '$build' && ctest --output-junit Testing/klms-junit.xml >/dev/null 2>&1");  # 3 fail on purpose
ok(-f "$build/Testing/klms-junit.xml", 'CTest wrote its JUnit file');
table('JUnit');

# From CTest's log alone (a ctest run without --output-junit): "Test Passed." for a skip there,
# so the driver's record is what tells it; a bare SKIP_RETURN_CODE test has no record.
unlink "$build/Testing/klms-junit.xml";
system("cd '$build' && ctest >/dev/null 2>&1");
my $out = `'$src/scripts/ci-timing.sh' --stages '$dir/stages.tsv' --total 7 2>&1`;
like($out, qr/\(7 tests: 3 passed, 1 skipped, 3 failed\)/,
     'log only: the recorded whole skip counts as Skipped; the bare exit 77 cannot be told from a pass there')
    or diag($out);
like($out, qr/^\s+[\d.]+\s+\S+\s+recipe_skipper\s+Skipped$/m, 'log only: recipe_skipper is listed as Skipped');

done_testing();
