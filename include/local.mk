include_HEADERS += %D%/adelim.h
