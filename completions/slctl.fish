# fish completion for slctl(8). slctl takes the global options before or
# after the command, so they are offered everywhere. Keep in step with
# cli/*.c: tests/cli/completions.sh fails when `slctl CMD --help` lists an
# option this file does not offer.

set -l commands status mitigate mode run offenders probe

complete -c slctl -f

# Global options
complete -c slctl -l root -r -a '(__fish_complete_directories)' -d 'Act on the system tree under DIR'
complete -c slctl -l json -d 'Print one JSON document on stdout'
complete -c slctl -s v -l verbose -d 'Say more (repeat for debug output)'
complete -c slctl -s h -l help -d 'Show the help'
complete -c slctl -s V -l version -d 'Show the version'

# Commands
complete -c slctl -n "not __fish_seen_subcommand_from $commands" -a status -d "Show the detector's state now and after reboot"
complete -c slctl -n "not __fish_seen_subcommand_from $commands" -a mitigate -d 'Show or set the split-lock penalty'
complete -c slctl -n "not __fish_seen_subcommand_from $commands" -a mode -d 'Show the detection mode, switch it now, or persist it'
complete -c slctl -n "not __fish_seen_subcommand_from $commands" -a run -d 'Run a command with the split-lock penalty lifted for it'
complete -c slctl -n "not __fish_seen_subcommand_from $commands" -a offenders -d 'Who trips the detector, from the kernel log'
complete -c slctl -n "not __fish_seen_subcommand_from $commands" -a probe -d 'What this machine does to a split lock, and what one costs'

# mitigate [on|off] [--persist] [--dry-run]
complete -c slctl -n '__fish_seen_subcommand_from mitigate' -a 'on off'
complete -c slctl -n '__fish_seen_subcommand_from mitigate' -s p -l persist -d 'Also keep the setting across reboots'
complete -c slctl -n '__fish_seen_subcommand_from mitigate' -l dry-run -d 'Show what would change, change nothing'

# mode [MODE --persist|--now] [--backend NAME] [--dry-run]
complete -c slctl -n '__fish_seen_subcommand_from mode' -a 'off warn seq fatal ratelimit: default'
complete -c slctl -n '__fish_seen_subcommand_from mode' -s p -l persist -d 'Write the parameter for the next boot'
complete -c slctl -n '__fish_seen_subcommand_from mode' -l now -d 'Switch the running kernel now'
complete -c slctl -n '__fish_seen_subcommand_from mode' -s b -l backend -x -a '(slctl mode --backend help 2>/dev/null)' -d 'Bootloader tool to use'
complete -c slctl -n '__fish_seen_subcommand_from mode' -l dry-run -d 'Show the diff and the commands, change nothing'
complete -c slctl -n '__fish_seen_subcommand_from mode' -l run-tools -d 'With --root, run the regeneration commands inside the root'

# run [--no-misery] [--check ...] -- CMD [ARG...]: after --, the command's own completion
function __slctl_run_command
    set -l tokens (commandline -opc)
    set -l dashes (contains -i -- -- $tokens)
    set -e tokens[1..$dashes]
    complete -C (string join -- ' ' $tokens (commandline -ct))
end
complete -c slctl -n '__fish_seen_subcommand_from run; and not contains -- -- (commandline -opc)' -l no-misery -d 'Lift the misery penalty (what run does)'
complete -c slctl -n '__fish_seen_subcommand_from run; and not contains -- -- (commandline -opc)' -l check -d 'Count split locks and bus locks; fail above --max'
complete -c slctl -n '__fish_seen_subcommand_from run; and not contains -- -- (commandline -opc)' -l max -x -d 'Split locks and bus locks allowed'
complete -c slctl -n '__fish_seen_subcommand_from run; and not contains -- -- (commandline -opc)' -l report -r -F -d 'Write the report to a file as well'
complete -c slctl -n '__fish_seen_subcommand_from run; and not contains -- -- (commandline -opc)' -l report-format -x -a 'json junit' -d 'Format of the report file'
complete -c slctl -n '__fish_seen_subcommand_from run; and contains -- -- (commandline -opc)' -x -a '(__slctl_run_command)'

# offenders [OPTIONS]
set -l off '__fish_seen_subcommand_from offenders'
# --follow prints one line an event: no input, nothing that shapes a table.
set -l offnf '__fish_seen_subcommand_from offenders; and not __fish_seen_argument -s f -l follow'
complete -c slctl -n $offnf -s i -l input -r -F -d 'Read a saved log (- for stdin)'
complete -c slctl -n $offnf -l input-format -x -a '(slctl offenders --input-format help 2>/dev/null)' -d 'Format of the saved log'
complete -c slctl -n $off -s g -l group-by -x -a 'task process comm exe unit' -d 'One entry per'
complete -c slctl -n $off -s S -l since -x -a 'boot now today yesterday -1h -2h -30m -1d @' -d 'Events from TIME on'
complete -c slctl -n $off -s U -l until -x -a 'now -1h -2h -30m -1d @' -d 'Events up to TIME'
complete -c slctl -n $offnf -s t -l top -x -d 'Only the N offenders with most events'
complete -c slctl -n $off -s f -l follow -d 'Print events as they happen'
complete -c slctl -n $off -s F -l format -x -a 'table json prometheus' -d 'Output format'
complete -c slctl -n $offnf -s o -l output -x -a '(__fish_complete_list , "string split \" \" \"COMM PID TGID KIND ACTION EVENTS FIRST LAST IPS EXE CMDLINE UNIT\"")' -d 'Table columns'
complete -c slctl -n $offnf -s n -l noheadings -d 'No table header'
complete -c slctl -n $offnf -s r -l raw -d 'Raw table output'
complete -c slctl -n $offnf -s l -l full -d 'Do not truncate columns'

# probe [--simulate[=ac|db]] [--msr]
complete -c slctl -n '__fish_seen_subcommand_from probe' -l simulate -f -a 'ac db' -d "Ask the kernel's injection hook for a trap instead"
complete -c slctl -n '__fish_seen_subcommand_from probe' -l msr -d "Also read the detector's MSRs on every CPU"
