//! Reads a mysqltest script (`.test` or `.inc`) into commands, as `mysqltest` splits it.
//!
//! At the start of a command, `#` begins a comment line and `--` a one-line command
//! (`--error 1064`, `--source x.inc`); anything else runs to the current delimiter (`;`
//! until `delimiter` changes it), outside quotes. A text whose first word is a mysqltest
//! command (`let`, `eval`, `connect` ...) is that command, any other is SQL. `if (...)` and
//! `while (...)` end at their `{`; a `}` closes the block (`} else {` opens the other
//! branch). `write_file`, `append_file` and `perl` take the following lines up to their
//! terminator (`EOF` unless named) as their body, which is skipped here.

/// The words mysqltest reads as its own commands rather than SQL.
const COMMANDS: &[&str] = &[
    "append_file",
    "cat_file",
    "change_user",
    "character_set",
    "chmod",
    "connect",
    "connection",
    "copy_file",
    "copy_files_wildcard",
    "dec",
    "delimiter",
    "die",
    "diff_files",
    "dirty_close",
    "disable_abort_on_error",
    "disable_column_names",
    "disable_connect_log",
    "disable_cursor_protocol",
    "disable_info",
    "disable_metadata",
    "disable_non_blocking_api",
    "disable_parsing",
    "disable_prepare_warnings",
    "disable_ps2_protocol",
    "disable_ps_protocol",
    "disable_query_log",
    "disable_reconnect",
    "disable_result_log",
    "disable_service_connection",
    "disable_session_track_info",
    "disable_view_protocol",
    "disable_warnings",
    "disconnect",
    "echo",
    "enable_abort_on_error",
    "enable_column_names",
    "enable_connect_log",
    "enable_cursor_protocol",
    "enable_info",
    "enable_metadata",
    "enable_non_blocking_api",
    "enable_parsing",
    "enable_prepare_warnings",
    "enable_ps2_protocol",
    "enable_ps_protocol",
    "enable_query_log",
    "enable_reconnect",
    "enable_result_log",
    "enable_service_connection",
    "enable_session_track_info",
    "enable_view_protocol",
    "enable_warnings",
    "end",
    "end_timer",
    "error",
    "eval",
    "exec",
    "exec_in_background",
    "execw",
    "exit",
    "expr",
    "file_exists",
    "horizontal_results",
    "if",
    "inc",
    "let",
    "list_files",
    "list_files_append_file",
    "list_files_write_file",
    "lowercase_result",
    "mkdir",
    "move_file",
    "output",
    "perl",
    "ping",
    "query",
    "query_attributes",
    "query_horizontal",
    "query_vertical",
    "real_sleep",
    "reap",
    "remove_file",
    "remove_files_wildcard",
    "replace_column",
    "replace_regex",
    "replace_result",
    "require",
    "reset_connection",
    "result_format",
    "rmdir",
    "save_master_pos",
    "send",
    "send_eval",
    "send_quit",
    "send_shutdown",
    "shutdown_server",
    "skip",
    "sleep",
    "sorted_result",
    "source",
    "start_timer",
    "sync_slave_with_master",
    "sync_with_master",
    "vertical_results",
    "wait_for_slave_to_stop",
    "while",
    "write_file",
];

/// Commands whose body follows on the next lines, up to a terminator line.
const WITH_BODY: &[&str] = &["append_file", "perl", "write_file"];

/// One step of a script.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Step {
    /// SQL sent as written.
    Sql(String),
    /// A mysqltest command: its name (lower case) and the rest of its text.
    Command { name: String, arg: String },
    /// `if (cond) { then } [else { otherwise }]`.
    If {
        cond: String,
        then: Vec<Line>,
        otherwise: Vec<Line>,
    },
    /// `while (cond) { body }`.
    While { cond: String, body: Vec<Line> },
}

/// A step and the line it starts on (1-based).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Line {
    pub line: usize,
    pub step: Step,
}

/// Whether `word` is a mysqltest command.
pub fn is_command(word: &str) -> bool {
    COMMANDS.binary_search(&word).is_ok()
}

/// Parses a whole script. Malformed block structure (an unmatched `}`) ends the script
/// there, as far as it could be read.
pub fn parse(text: &str) -> Vec<Line> {
    let mut reader = Reader {
        bytes: text.as_bytes(),
        pos: 0,
        line: 1,
        delimiter: ";".to_string(),
        parsing: true,
    };
    let (steps, _) = reader.block();
    steps
}

struct Reader<'a> {
    bytes: &'a [u8],
    pos: usize,
    line: usize,
    delimiter: String,
    /// False between `disable_parsing` and `enable_parsing`.
    parsing: bool,
}

/// How a block ended.
enum End {
    Eof,
    Close,
    CloseElse,
}

impl Reader<'_> {
    fn peek(&self) -> Option<u8> {
        self.bytes.get(self.pos).copied()
    }

    fn bump(&mut self) -> Option<u8> {
        let b = self.peek()?;
        self.pos += 1;
        if b == b'\n' {
            self.line += 1;
        }
        Some(b)
    }

    fn rest_of_line(&mut self) -> String {
        let start = self.pos;
        while let Some(b) = self.peek() {
            if b == b'\n' {
                break;
            }
            self.pos += 1;
        }
        let text = String::from_utf8_lossy(&self.bytes[start..self.pos]).into_owned();
        self.bump();
        text
    }

    fn skip_space(&mut self) {
        while matches!(self.peek(), Some(b) if b.is_ascii_whitespace()) {
            self.bump();
        }
    }

    fn at(&self, text: &str) -> bool {
        self.bytes[self.pos..].starts_with(text.as_bytes())
    }

    /// Reads steps until the end of the text or a `}` closing this block.
    fn block(&mut self) -> (Vec<Line>, End) {
        let mut steps = Vec::new();
        loop {
            self.skip_space();
            let Some(b) = self.peek() else {
                return (steps, End::Eof);
            };
            let line = self.line;
            if b == b'#' {
                self.rest_of_line();
                continue;
            }
            if b == b'}' {
                self.bump();
                let save = (self.pos, self.line);
                self.skip_space();
                if self.at("else") {
                    self.pos += 4;
                    self.skip_space();
                    if self.peek() == Some(b'{') {
                        self.bump();
                        return (steps, End::CloseElse);
                    }
                }
                (self.pos, self.line) = save;
                return (steps, End::Close);
            }
            let text = if self.at("--") {
                self.pos += 2;
                let text = self.rest_of_line();
                let word = first_word(&text);
                if !is_command(&word) {
                    continue; // an SQL-style comment line
                }
                text
            } else {
                match self.until_delimiter() {
                    Some(text) => text,
                    None => continue,
                }
            };
            if let Some(step) = self.step(text.trim()) {
                steps.push(Line { line, step });
            }
        }
    }

    /// The text up to the delimiter (outside quotes), or up to a `{` after `if`/`while`.
    fn until_delimiter(&mut self) -> Option<String> {
        let start = self.pos;
        let mut quote: Option<u8> = None;
        let block_head = {
            let word = first_word(&String::from_utf8_lossy(
                &self.bytes[self.pos..(self.pos + 8).min(self.bytes.len())],
            ));
            word == "if" || word == "while"
        };
        while let Some(b) = self.peek() {
            if let Some(q) = quote {
                self.bump();
                if b == b'\\' {
                    self.bump();
                } else if b == q {
                    quote = None;
                }
                continue;
            }
            if block_head && b == b'{' {
                let text = String::from_utf8_lossy(&self.bytes[start..self.pos]).into_owned();
                self.bump();
                return Some(text + "{");
            }
            if self.at(&self.delimiter) {
                let text = String::from_utf8_lossy(&self.bytes[start..self.pos]).into_owned();
                self.pos += self.delimiter.len();
                return Some(text);
            }
            if !block_head && matches!(b, b'\'' | b'"' | b'`') {
                quote = Some(b);
            }
            self.bump();
        }
        let text = String::from_utf8_lossy(&self.bytes[start..]).into_owned();
        (!text.trim().is_empty()).then_some(text)
    }

    /// The step a command's text makes; `None` for what only changes how the script is read.
    fn step(&mut self, text: &str) -> Option<Step> {
        let word = first_word(text);
        if !self.parsing {
            if word == "enable_parsing" {
                self.parsing = true;
            }
            return None;
        }
        if !is_command(&word) {
            return Some(Step::Sql(text.to_string()));
        }
        let arg = text[word.len()..].trim().to_string();
        match word.as_str() {
            "delimiter" => {
                let new = arg.trim_end_matches(&self.delimiter).trim();
                if !new.is_empty() {
                    self.delimiter = new.to_string();
                }
                None
            }
            "disable_parsing" => {
                self.parsing = false;
                None
            }
            "if" | "while" => {
                let head = arg.trim_end_matches('{').trim();
                let cond = head
                    .strip_prefix('(')
                    .and_then(|c| c.strip_suffix(')'))
                    .unwrap_or(head)
                    .to_string();
                if !text.ends_with('{') {
                    // `if (cond)` with `{` on a later line.
                    self.skip_space();
                    if self.peek() == Some(b'{') {
                        self.bump();
                    }
                }
                let (body, end) = self.block();
                if word == "while" {
                    return Some(Step::While { cond, body });
                }
                let otherwise = match end {
                    End::CloseElse => self.block().0,
                    _ => Vec::new(),
                };
                Some(Step::If {
                    cond,
                    then: body,
                    otherwise,
                })
            }
            _ if WITH_BODY.contains(&word.as_str()) => {
                self.skip_body(&word, &arg);
                Some(Step::Command { name: word, arg })
            }
            _ => Some(Step::Command { name: word, arg }),
        }
    }

    /// Skips the lines of a `write_file`/`perl` body up to its terminator line.
    fn skip_body(&mut self, word: &str, arg: &str) {
        // `perl [TERMINATOR]`, `write_file FILE [TERMINATOR]`.
        let position = usize::from(word != "perl");
        let terminator = arg
            .split_whitespace()
            .nth(position)
            .map(|t| t.trim_end_matches(';'))
            .filter(|t| !t.is_empty())
            .unwrap_or("EOF")
            .to_string();
        while self.peek().is_some() {
            let text = self.rest_of_line();
            if text.trim() == terminator {
                break;
            }
        }
    }
}

/// The first word of a command, lower case, without a trailing delimiter or `(`.
pub fn first_word(text: &str) -> String {
    text.trim_start()
        .split(|c: char| c.is_whitespace() || c == '(' || c == ';')
        .next()
        .unwrap_or("")
        .to_ascii_lowercase()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sql(text: &str) -> Step {
        Step::Sql(text.to_string())
    }

    fn cmd(name: &str, arg: &str) -> Step {
        Step::Command {
            name: name.to_string(),
            arg: arg.to_string(),
        }
    }

    fn steps(text: &str) -> Vec<Step> {
        parse(text).into_iter().map(|l| l.step).collect()
    }

    #[test]
    fn the_command_list_is_sorted_for_binary_search() {
        assert!(COMMANDS.windows(2).all(|w| w[0] < w[1]));
    }

    #[test]
    fn statements_end_at_the_delimiter_outside_quotes() {
        let text = "# a comment\nselect 'a;b',\n  2;\n-- a comment line\n--error 1064\nselec 1;";
        assert_eq!(
            steps(text),
            [
                sql("select 'a;b',\n  2"),
                cmd("error", "1064"),
                sql("selec 1")
            ]
        );
        assert_eq!(parse(text)[2].line, 6);
    }

    #[test]
    fn delimiter_changes_how_statements_end() {
        let text =
            "delimiter |;\ncreate procedure p() begin select 1; end|\ndelimiter ;|\nselect 2;";
        assert_eq!(
            steps(text),
            [
                sql("create procedure p() begin select 1; end"),
                sql("select 2")
            ]
        );
    }

    #[test]
    fn blocks_nest_with_else() {
        let text = "let $i= 2;\nwhile ($i)\n{\n  if ($i == 1) {\n    select 1;\n  } else {\n    select 2;\n  }\n  dec $i;\n}\nselect 3;";
        let parsed = steps(text);
        assert_eq!(parsed[0], cmd("let", "$i= 2"));
        let Step::While { cond, body } = &parsed[1] else {
            panic!("a while block: {parsed:?}");
        };
        assert_eq!(cond, "$i");
        let Step::If {
            cond,
            then,
            otherwise,
        } = &body[0].step
        else {
            panic!("an if block");
        };
        assert_eq!(cond, "$i == 1");
        assert_eq!(then[0].step, sql("select 1"));
        assert_eq!(otherwise[0].step, sql("select 2"));
        assert_eq!(body[1].step, cmd("dec", "$i"));
        assert_eq!(parsed[2], sql("select 3"));
    }

    #[test]
    fn file_bodies_and_disabled_parts_are_skipped() {
        let text = "write_file $f;\nselect 1;\nEOF\n--disable_parsing\nselect 2;\n--enable_parsing\nselect 3;";
        assert_eq!(steps(text), [cmd("write_file", "$f"), sql("select 3")]);
    }
}
