std = "lua54"
max_line_length = 100
files["spec/"] = { std = "+busted" }
exclude_files = { "build*/**" }
